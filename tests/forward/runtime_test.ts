import assert from "node:assert/strict";
import { Runtime } from "../../src/forward/runtime.ts";
import { selectFeeds } from "../../src/forward/select_feeds.ts";
import { ProxyClients } from "../../src/net/proxy_clients.ts";
import { parseSettings } from "../../src/config/load.ts";
import { LockError } from "../../src/store/lock.ts";
import { memoryLogger } from "../support/forward_stubs.ts";

Deno.test("proxy clients: update opens what is new, keeps what stays, closes the rest later", async () => {
  const proxies = new ProxyClients();
  try {
    await proxies.update(["http://127.0.0.1:1", null]);
    const first = proxies.get("http://127.0.0.1:1");
    assert.ok(first);
    assert.equal(proxies.get(null), undefined);

    const closeDropped = await proxies.update(["http://127.0.0.1:1", "socks5://127.0.0.1:2"]);
    assert.equal(proxies.get("http://127.0.0.1:1"), first, "a kept proxy keeps its client");
    assert.ok(proxies.get("socks5://127.0.0.1:2"));
    await closeDropped();

    const closeOld = await proxies.update(["socks5://127.0.0.1:2"]);
    assert.equal(proxies.get("http://127.0.0.1:1"), undefined);
    await closeOld();
    // A closed client refuses requests.
    await assert.rejects(fetch("http://127.0.0.1:1/", { client: first }));
  } finally {
    await proxies.close();
  }
});

Deno.test("proxy clients: a bad value opens nothing and keeps the clients in use", async () => {
  const proxies = new ProxyClients();
  try {
    await proxies.update(["http://127.0.0.1:1"]);
    await assert.rejects(proxies.update(["http://127.0.0.1:3", "ftp://nope"]), {
      name: "ProxyError",
      exitCode: 2,
    });
    assert.ok(proxies.get("http://127.0.0.1:1"));
    assert.equal(proxies.get("http://127.0.0.1:3"), undefined);
  } finally {
    await proxies.close();
  }
});

function settingsIn(dir: string) {
  return parseSettings(
    `messenger_auth_token: "123:abc"
data_dir: ${dir}
feeds:
  - { name: a, channel: "@c", url: "http://127.0.0.1:1/a", cron: "* * * * *", type: rss }
  - { name: b, channel: "@c", url: "http://127.0.0.1:1/b", cron: "* * * * *", type: rss }
`,
    `${dir}/config.yml`,
    dir,
  );
}

Deno.test("runtime: feeds are selected in config order; an unknown name is a usage error", () => {
  const settings = settingsIn("/tmp/unused");
  assert.deepEqual(selectFeeds("once", settings, ["b", "a"]).map((f) => f.name), ["a", "b"]);
  assert.throws(() => selectFeeds("once", settings, ["zz"]), { exitCode: 2, message: /"zz"/ });
});

Deno.test("runtime: holds the data_dir lock until closed; a dry run takes none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const settings = settingsIn(dir);
    const { logger } = memoryLogger();
    const base = { settings, feeds: settings.feeds, messengerApi: "http://127.0.0.1:1", logger };
    const first = await Runtime.open({ ...base, dryRun: false, writeOut: () => {} });
    try {
      await assert.rejects(
        Runtime.open({ ...base, dryRun: false, writeOut: () => {} }),
        (e) => e instanceof LockError && e.exitCode === 1,
      );
      const dry = await Runtime.open({ ...base, dryRun: true, writeOut: () => {} });
      await dry.close();
    } finally {
      await first.close();
    }
    const again = await Runtime.open({ ...base, dryRun: false, writeOut: () => {} });
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
