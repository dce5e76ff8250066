/**
 * `courier preview --proxy`: a feed checked by hand through the same proxy forms as the config,
 * against real proxies (tinyproxy, microsocks, microsocks behind a unix socket). Each proxy's
 * own log proves the request went through it.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { runCli } from "../support/cli.ts";
import { startFeedServer } from "../support/once_feeds.ts";
import { startMicrosocks, startTinyproxy, startUnixSocks } from "../support/proxy_servers.ts";

const PASSWORD = "pr0xy-s3cret";

const items = [1, 2].map((i) => ({
  id: `p${i}`,
  title: `proxied post ${i}`,
  link: `https://example.org/p/${i}`,
  minute: i,
}));

async function previewThrough(proxy: string, url: string) {
  const r = await runCli(["preview", url, "--json", "--proxy", proxy]);
  assert(!r.stdout.includes(PASSWORD) && !r.stderr.includes(PASSWORD), "password leaked");
  return r;
}

Deno.test("preview --proxy fetches through http, socks5, socks5h and socks5://unix proxies", async () => {
  const feeds = startFeedServer();
  const http = await startTinyproxy({ user: "courier", pass: PASSWORD });
  const socks = await startMicrosocks({ user: "courier", pass: PASSWORD });
  const unixSocks = await startUnixSocks();
  try {
    feeds.set("/f.xml", items);
    const url = feeds.url("/f.xml");
    const port = new URL(url).port;
    const proxies: [string, () => string, RegExp][] = [
      [http.url, http.log, /f\.xml/],
      [socks.url, socks.log, new RegExp(`connected to 127\\.0\\.0\\.1:${port}`)],
      [socks.url.replace("socks5://", "socks5h://"), socks.log, /connected to/],
      [unixSocks.url, unixSocks.log, new RegExp(`connected to 127\\.0\\.0\\.1:${port}`)],
    ];
    for (const [proxy, log, seen] of proxies) {
      const before = log().length;
      const r = await previewThrough(proxy, url);
      assertEquals(r.code, 0, r.stderr);
      const titles = JSON.parse(r.stdout).entries.map((e: { title: string }) => e.title);
      assertEquals(titles.toSorted(), ["proxied post 1", "proxied post 2"]);
      assertMatch(log().slice(before), seen, `${proxy} carried the request`);
    }
  } finally {
    await Promise.all([http.stop(), socks.stop(), unixSocks.stop()]);
    await feeds.close();
  }
});

Deno.test("preview --proxy: a wrong value or a FILE is a usage error; a refused proxy exits 1", async () => {
  const feeds = startFeedServer();
  try {
    feeds.set("/f.xml", items);
    const url = feeds.url("/f.xml");
    const bad = await previewThrough(`ftp://u:${PASSWORD}@127.0.0.1:21`, url);
    assertEquals([bad.code, bad.stderr.trim().split("\n").length], [2, 1], bad.stderr);
    assertMatch(bad.stderr, /^courier preview: --proxy: invalid proxy .*unsupported scheme "ftp"/);
    const file = await runCli(["preview", "README.md", "--proxy", "socks5://127.0.0.1:1"]);
    assertEquals(file.code, 2);
    assertEquals(file.stderr, "courier preview: --proxy applies to a URL, not a FILE\n");
    // A proxy that is not listening: the feed cannot be fetched; the password stays hidden.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadPort = listener.addr.port;
    listener.close();
    const dead = await previewThrough(`socks5://u:${PASSWORD}@127.0.0.1:${deadPort}`, url);
    assertEquals(dead.code, 1, dead.stderr);
    assertEquals(dead.stdout, "");
  } finally {
    await feeds.close();
  }
});
