/** Defaults and precedence, computed in one place (src/config/effective.ts). */
import { ConfigError } from "../../src/config/errors.ts";
import { parseSettings } from "../../src/config/load.ts";
import { assert, assertEquals, assertThrows } from "../support/assert.ts";

const TOKEN = "123:abc_DEF";
const feed = (extra = "", name = "f") =>
  `  - name: ${name}\n    channel: "@chan"\n    url: http://127.0.0.1/x\n    cron: "* * * * *"\n` +
  `    type: rss\n${extra}`;
const settings = (top: string, feeds = feed()) =>
  parseSettings(`messenger_auth_token: "${TOKEN}"\n${top}feeds:\n${feeds}`, "c.yml", "/srv/app");

Deno.test("effective: defaults of the spec", () => {
  const s = settings("");
  assertEquals(s.dataDir, "/srv/app");
  assertEquals(s.dbDir, "/srv/app/feed_data");
  assertEquals(s.lastLoadedPath, "/srv/app/last_success.yml");
  assertEquals(s.firstTimeLimit, -1);
  assertEquals(s.messengerProxy, null);
  assertEquals(s.configPath, "/srv/app/c.yml");
  const [f] = s.feeds;
  assertEquals(f.urls, ["http://127.0.0.1/x"]);
  assertEquals(f.linkText, "Link");
  assertEquals(f.rhash, "");
  assertEquals(f.proxy, null);
  assertEquals(f.firstTimeLimit, -1);
});

Deno.test("effective: paths derive from data_dir and resolve against the config's directory", () => {
  const s = settings("data_dir: state\n");
  assertEquals(s.dataDir, "/srv/app/state");
  assertEquals(s.dbDir, "/srv/app/state/feed_data");
  assertEquals(s.lastLoadedPath, "/srv/app/state/last_success.yml");
  const t = settings("data_dir: /d\ndb_dir: ./db\nlast_loaded_path: /var/last.yml\n");
  assertEquals(t.dbDir, "/srv/app/db");
  assertEquals(t.lastLoadedPath, "/var/last.yml");
  // A config elsewhere: its own directory, whatever the working directory.
  const u = parseSettings(
    `messenger_auth_token: "${TOKEN}"\ndata_dir: state\nfeeds:\n${feed()}`,
    "../etc/courier/c.yml",
    "/srv/app",
  );
  assertEquals(u.configPath, "/srv/etc/courier/c.yml");
  assertEquals(u.dataDir, "/srv/etc/courier/state");
});

Deno.test("effective: proxy precedence for feeds and the messenger", () => {
  const global = "http://127.0.0.1:3128";
  const own = "socks5://127.0.0.1:1080";
  const s = settings(
    `proxy: ${global}\n`,
    feed("", "a") + feed(`    proxy: ${own}\n`, "b") + feed(`    proxy: ""\n`, "c"),
  );
  assertEquals(s.feeds.map((f) => f.proxy), [global, own, null]);
  assertEquals(s.messengerProxy, global, "messenger falls back to the global proxy");
  assertEquals(settings(`proxy: ${global}\nmessenger_proxy: NONE\n`).messengerProxy, null);
  assertEquals(settings(`proxy: ${global}\nmessenger_proxy: ""\n`).messengerProxy, null);
  assertEquals(settings(`messenger_proxy: ${own}\n`).messengerProxy, own);
  assertEquals(settings(`messenger_proxy: ${own}\n`).feeds[0].proxy, null);
});

Deno.test("effective: first_time_limit, a feed's non-zero value wins", () => {
  const feeds = feed("", "a") + feed("    first_time_limit: 0\n", "b") +
    feed("    first_time_limit: 3\n", "c") + feed("    first_time_limit: -1\n", "d");
  assertEquals(settings("first_time_limit: 10\n", feeds).feeds.map((f) => f.firstTimeLimit), [
    10,
    10,
    3,
    -1,
  ]);
  assertEquals(settings("", feeds).feeds.map((f) => f.firstTimeLimit), [-1, -1, 3, -1]);
});

Deno.test("effective: title, rhash and url lists carry through; the token stays secret", () => {
  const s = settings(
    "",
    `  - name: x\n    channel: "-100123"\n    url: [http://a.test/1, https://b.test/2]\n` +
      `    cron: "@hourly"\n    type: atom\n    title: Read\n    rhash: abc123\n`,
  );
  const [f] = s.feeds;
  assertEquals(f.urls, ["http://a.test/1", "https://b.test/2"]);
  assertEquals([f.linkText, f.rhash, f.type, f.channel], ["Read", "abc123", "atom", "-100123"]);
  assertEquals(s.token.reveal(), TOKEN);
  assert(!JSON.stringify(s).includes(TOKEN));
  assert(!String(s.token).includes(TOKEN));
  assert(!Deno.inspect(s).includes(TOKEN));
});

Deno.test("effective: anchors and merge keys resolve before validation", () => {
  const s = parseSettings(
    `refs:\n  p: &p socks5h://127.0.0.1:9050\n  base: &base\n    channel: "@chan"\n` +
      `    cron: "0 * * * *"\n    type: rss\nmessenger_auth_token: "${TOKEN}"\nfeeds:\n` +
      `  - <<: *base\n    name: one\n    url: http://x.test/\n    proxy: *p\n` +
      `  - <<: *base\n    name: two\n    url: http://y.test/\n    type: atom\n`,
    "c.yml",
    "/",
  );
  assertEquals(s.feeds.map((f) => [f.name, f.type, f.proxy]), [
    ["one", "rss", "socks5h://127.0.0.1:9050"],
    ["two", "atom", null],
  ]);
});

Deno.test("effective: every problem of a file is reported, not just the first", () => {
  const error = assertThrows(() =>
    settings("proxy: ftp://x\nfirst_time_limit: -5\n", feed("    colour: red\n"))
  ) as ConfigError;
  assert(error instanceof ConfigError);
  assertEquals(error.problems.length, 3, error.message);
  assert(error.problems.every((p) => /^c\.yml:\d+:\d+: /.test(p)), error.message);
});
