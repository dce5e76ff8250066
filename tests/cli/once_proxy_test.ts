/**
 * `courier once` end to end through real proxies: feeds through the global HTTP proxy
 * (tinyproxy) or their own SOCKS5-over-unix-socket proxy (microsocks behind socat), the
 * messenger through `messenger_proxy` (microsocks with a password) or direct with `NONE`.
 * Each proxy's own log proves which traffic went through it.
 */
import { stringify } from "../support/yaml.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { runCli } from "../support/cli.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { startFeedServer } from "../support/once_feeds.ts";
import { startMicrosocks, startTinyproxy, startUnixSocks } from "../support/proxy_servers.ts";

const TOKEN = "123456:PROXY-token_abc";
const PASSWORD = "pr0xy-s3cret";

const items = (prefix: string) =>
  [1, 2].map((i) => ({
    id: `${prefix}${i}`,
    title: `${prefix} post ${i}`,
    link: `https://example.org/${prefix}/${i}`,
    minute: i,
  }));

const feed = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  name,
  channel: `@chan_${name}`,
  url,
  cron: "*/5 * * * *",
  type: "rss",
  ...extra,
});

function assertNoSecrets(...texts: string[]) {
  for (const text of texts) {
    assert(!text.includes(TOKEN) && !text.includes("PROXY-token"), `token leaked:\n${text}`);
    assert(!text.includes(PASSWORD), `proxy password leaked:\n${text}`);
  }
}

Deno.test("once through proxies: each feed and the messenger take the proxy in effect", async () => {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const http = await startTinyproxy();
  const unixSocks = await startUnixSocks();
  const messengerSocks = await startMicrosocks({ user: "courier", pass: PASSWORD });
  try {
    feeds.set("/a.xml", items("a"));
    feeds.set("/b.xml", items("b"));
    await Deno.writeTextFile(
      `${dir}/config.yml`,
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: `${dir}/data`,
        proxy: http.url,
        messenger_proxy: messengerSocks.url.replace("socks5://", "socks5h://"),
        feeds: [
          feed("a", feeds.url("/a.xml")),
          feed("b", feeds.url("/b.xml"), { proxy: unixSocks.url }),
        ],
      }),
    );
    const run = await runCli(["once", "-c", `${dir}/config.yml`, "--messenger-api", bot.url]);
    assertNoSecrets(run.stdout, run.stderr);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(bot.messages("@chan_a").map((m) => m.bold[0]), ["a post 1", "a post 2"]);
    assertEquals(bot.messages("@chan_b").map((m) => m.bold[0]), ["b post 1", "b post 2"]);

    const feedPort = new URL(feeds.url("/")).port;
    const botPort = new URL(bot.url).port;
    assertMatch(http.log(), /a\.xml/, "feed a went through the HTTP proxy");
    assert(!http.log().includes("b.xml"), "feed b did not use the global proxy");
    assert(!http.log().includes(`:${botPort}`), "the messenger did not use the global proxy");
    assertMatch(unixSocks.log(), new RegExp(`connected to 127\\.0\\.0\\.1:${feedPort}`));
    assert(!unixSocks.log().includes(`:${botPort}`), "only feed b used the unix-socket proxy");
    assertMatch(messengerSocks.log(), new RegExp(`connected to 127\\.0\\.0\\.1:${botPort}`));
    assert(!messengerSocks.log().includes(`:${feedPort}`), "no feed used the messenger proxy");
  } finally {
    await Promise.all([http.stop(), unixSocks.stop(), messengerSocks.stop()]);
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("once through proxies: NONE sends the messenger direct; a refused proxy loses nothing", async () => {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const http = await startTinyproxy();
  const socks = await startMicrosocks({ user: "courier", pass: PASSWORD });
  const config = (messengerProxy: string) =>
    Deno.writeTextFile(
      `${dir}/config.yml`,
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: `${dir}/data`,
        proxy: http.url,
        messenger_proxy: messengerProxy,
        feeds: [feed("a", feeds.url("/a.xml"))],
      }),
    );
  const once = () => runCli(["once", "-c", `${dir}/config.yml`, "--messenger-api", bot.url]);
  try {
    feeds.set("/a.xml", items("a"));
    // A wrong password at the messenger's proxy: the run fails, says why without the
    // password, and records nothing as sent.
    await config(socks.url.replace(`:${PASSWORD}@`, ":wrong-password@"));
    const refused = await once();
    assertNoSecrets(refused.stdout, refused.stderr, "wrong-password");
    assert(!refused.stderr.includes("wrong-password"), refused.stderr);
    assertEquals(refused.code, 1, refused.stderr);
    // Wrong credentials are a configuration error: said at once, not retried for a minute.
    assertMatch(refused.stderr, /proxy to the messenger refused its credentials/);
    assert(!refused.stderr.includes("retrying"), refused.stderr);
    assertEquals(bot.messages().length, 0);

    // NONE: direct to the messenger, while the feed still goes through the global proxy.
    await config("NONE");
    const direct = await once();
    assertNoSecrets(direct.stdout, direct.stderr);
    assertEquals(direct.code, 0, direct.stderr);
    assertEquals(bot.messages("@chan_a").map((m) => m.bold[0]), ["a post 1", "a post 2"]);
    assert(!http.log().includes(`:${new URL(bot.url).port}`), "messenger went direct");
    assertMatch(http.log(), /a\.xml/);
  } finally {
    await Promise.all([http.stop(), socks.stop()]);
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});
