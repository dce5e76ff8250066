import assert from "node:assert/strict";
import { parse } from "../support/yaml.ts";
import { type CliResult, runCli } from "../support/cli.ts";
import { type CliEnv, withCliEnv } from "../support/cli_env.ts";
import type { FakeBotApi, FakeBotApiOptions } from "../support/fake_bot_api.ts";
import { postItems } from "../support/once_feeds.ts";
import { Store } from "../../src/store/db.ts";
import { acquireLock } from "../../src/store/lock.ts";

interface Env extends CliEnv {
  /** Runs `courier once -c <config>` against the fake. */
  once(...args: string[]): Promise<CliResult>;
  lastSuccess(): Promise<Record<string, string>>;
}

function feed(name: string, url: string | string[], extra: Record<string, unknown> = {}) {
  return { name, channel: "@news_chan", url, cron: "*/5 * * * *", type: "rss", ...extra };
}

function withEnv(fn: (env: Env) => Promise<void>, botOptions: FakeBotApiOptions = {}) {
  return withCliEnv((env) =>
    fn({
      ...env,
      once: (...args) => env.run("once", ...args),
      async lastSuccess() {
        try {
          return parse(await Deno.readTextFile(`${env.dir}/data/last_success.yml`)) ?? {};
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) return {};
          throw error;
        }
      },
    }), botOptions);
}

const bolds = (bot: FakeBotApi, chat?: string) => bot.messages(chat).map((m) => m.bold[0]);
const items = postItems;

Deno.test("once: first run sends every entry in order, a second run nothing, a new entry once", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a", "b", "c"]));
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    const first = await env.once();
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(bolds(env.bot, "@news_chan"), ["Post a", "Post b", "Post c"]);
    assert.match(first.stdout, /^feed\s+fetched\s+new\s+sent\s+failed\s+error$/m);
    assert.match(first.stdout, /^news\s+3\s+3\s+3\s+0$/m);
    assert.ok((await env.lastSuccess()).news);

    const second = await env.once();
    assert.equal(second.code, 0);
    assert.equal(env.bot.messages().length, 3);

    env.feeds.set("/news.xml", items(["a", "b", "c", "d"]));
    assert.equal((await env.once()).code, 0);
    assert.equal((await env.once()).code, 0);
    assert.deepEqual(bolds(env.bot), ["Post a", "Post b", "Post c", "Post d"]);
    assert.ok(await Deno.stat(`${env.dir}/data/feed_data/courier.db`));
  }));

Deno.test("once: the first-sighting limit, top level and per feed, and the line that says so", () =>
  withEnv(async (env) => {
    const ids = ["1", "2", "3", "4", "5"];
    for (const name of ["top", "own", "all"]) env.feeds.set(`/${name}.xml`, items(ids));
    await env.writeConfig({
      first_time_limit: 2,
      feeds: [
        feed("top", env.feeds.url("/top.xml"), { channel: "@top_chan" }),
        feed("own", env.feeds.url("/own.xml"), { channel: "@own_chan", first_time_limit: 1 }),
        feed("all", env.feeds.url("/all.xml"), { channel: "@all_chan", first_time_limit: -1 }),
      ],
    });
    const r = await env.once();
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(bolds(env.bot, "@top_chan"), ["Post 4", "Post 5"]);
    assert.deepEqual(bolds(env.bot, "@own_chan"), ["Post 5"]);
    assert.deepEqual(bolds(env.bot, "@all_chan"), ids.map((i) => `Post ${i}`));
    // A first sighting that holds entries back says how many, and which key limits it.
    const lines = r.stderr.split("\n").filter((l) => l.includes("first sighting"));
    assert.equal(lines.length, 2, r.stderr);
    const line = (feed: string) =>
      lines.find((l) =>
        l.endsWith(` feed=${feed} sent=${feed === "top" ? 2 : 1} skipped=${feed === "top" ? 3 : 4}`)
      );
    assert.match(
      line("top") ?? r.stderr,
      /msg="first sighting: 5 entries, the top-level first_time_limit 2 sends the newest 2; the 3 older are recorded as seen, never sent"/,
    );
    assert.match(
      line("own") ?? r.stderr,
      /msg="first sighting: 5 entries, feed own's first_time_limit 1 sends the newest 1; the 4 older are recorded as seen, never sent"/,
    );
    // After the first sighting, every new entry goes.
    for (const name of ["top", "own", "all"]) {
      env.feeds.set(`/${name}.xml`, items([...ids, "6", "7"]));
    }
    assert.equal((await env.once()).code, 0);
    assert.deepEqual(bolds(env.bot, "@own_chan"), ["Post 5", "Post 6", "Post 7"]);
    assert.deepEqual(bolds(env.bot, "@top_chan"), ["Post 4", "Post 5", "Post 6", "Post 7"]);
  }));

Deno.test("once: a feed's explicit first_time_limit 0 takes the top-level limit", () =>
  withEnv(async (env) => {
    // DESIGN.md and README: a feed's 0 (also its default) means "use the top-level value"; a
    // regression that took 0 as "send nothing" (or as "no limit") changes what @zero_chan gets.
    const ids = ["1", "2", "3", "4", "5"];
    for (const name of ["zero", "unset", "own"]) env.feeds.set(`/${name}.xml`, items(ids));
    await env.writeConfig({
      first_time_limit: 2,
      feeds: [
        feed("zero", env.feeds.url("/zero.xml"), { channel: "@zero_chan", first_time_limit: 0 }),
        feed("unset", env.feeds.url("/unset.xml"), { channel: "@unset_chan" }),
        feed("own", env.feeds.url("/own.xml"), { channel: "@own_chan", first_time_limit: 1 }),
      ],
    });
    const r = await env.once();
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(bolds(env.bot, "@zero_chan"), ["Post 4", "Post 5"]);
    assert.deepEqual(bolds(env.bot, "@unset_chan"), ["Post 4", "Post 5"]);
    assert.deepEqual(bolds(env.bot, "@own_chan"), ["Post 5"]);
    assert.match(r.stdout, /^zero\s+5\s+2\s+2\s+0$/m);
    assert.match(r.stdout, /; 5 sent, 10 older entries skipped at first sighting$/m);
    // The held-back entries were recorded as seen: the next run sends only the new one.
    env.feeds.set("/zero.xml", items([...ids, "6"]));
    const next = await env.once();
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(bolds(env.bot, "@zero_chan"), ["Post 4", "Post 5", "Post 6"]);
  }));

Deno.test("once: a feed's URLs are merged, each entry sent once, oldest first", () =>
  withEnv(async (env) => {
    env.feeds.set("/one.xml", [
      { id: "x1", title: "X1", link: "https://example.org/x1", minute: 1 },
      { id: "shared", title: "Shared", link: "https://example.org/shared", minute: 3 },
    ]);
    env.feeds.set("/two.xml", [
      { id: "y1", title: "Y1", link: "https://example.org/y1", minute: 2 },
      { id: "shared", title: "Shared", link: "https://example.org/shared", minute: 3 },
      { id: "y2", title: "Y2", link: "https://example.org/y2", minute: 4 },
    ]);
    await env.writeConfig({
      feeds: [feed("merged", [env.feeds.url("/one.xml"), env.feeds.url("/two.xml")])],
    });
    const r = await env.once();
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(bolds(env.bot), ["X1", "Y1", "Shared", "Y2"]);
  }));

Deno.test("once: a failing feed does not stop the others and leaves its last success untouched", () =>
  withEnv(async (env) => {
    env.feeds.set("/good.xml", items(["g"]));
    env.feeds.fail("/bad.xml", 500);
    await env.writeConfig({
      feeds: [
        feed("bad", env.feeds.url("/bad.xml")),
        feed("good", env.feeds.url("/good.xml"), { channel: "@good_chan" }),
      ],
    });
    await Deno.mkdir(`${env.dir}/data`);
    await Deno.writeTextFile(`${env.dir}/data/last_success.yml`, "bad: 2023-01-01T00:00:00Z\n");
    const r = await env.once();
    assert.equal(r.code, 1);
    assert.deepEqual(bolds(env.bot, "@good_chan"), ["Post g"]);
    assert.match(r.stdout, /^bad\s+0\s+0\s+0\s+0\s+.*\/bad\.xml.*500/m);
    assert.match(r.stdout, /^good\s+1\s+1\s+1\s+0$/m);
    const times = await env.lastSuccess();
    assert.equal(times.bad, "2023-01-01T00:00:00Z");
    assert.ok(times.good);
  }));

Deno.test("once: hostile titles are escaped and arrive exactly as written", () =>
  withEnv(async (env) => {
    // Titles are HTML in feeds: the title below, as text, reads exactly `hostile`.
    const hostile = `</b><a href="javascript:x">&amp; <script>alert(1)</script> "q" & 1 < 2 > 0`;
    const asHtml = hostile.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    env.feeds.set("/h.xml", [{ id: "h", title: asHtml, link: "https://example.org/?a=1&b=<2>" }]);
    await env.writeConfig({
      feeds: [feed("hostile", env.feeds.url("/h.xml"), { title: "<i>Read</i> & more" })],
    });
    const r = await env.once();
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const [m] = env.bot.messages();
    assert.deepEqual(m.bold, [hostile]);
    assert.equal(m.links.length, 1);
    assert.equal(m.links[0].text, "<i>Read</i> & more");
    assert.equal(new URL(m.links[0].href).searchParams.get("b"), "<2>");
  }));

Deno.test("once: rhash sends Instant View links with previews on", () =>
  withEnv(async (env) => {
    env.feeds.set("/iv.xml", items(["p"]));
    await env.writeConfig({ feeds: [feed("iv", env.feeds.url("/iv.xml"), { rhash: "a1b2c3" })] });
    assert.equal((await env.once()).code, 0);
    const [m] = env.bot.messages();
    assert.equal(
      m.links[0].href,
      `https://t.me/iv?url=${encodeURIComponent("https://example.org/p")}&rhash=a1b2c3`,
    );
    assert.equal(m.previews, true);
  }));

Deno.test("once --dry-run prints the messages, sends nothing and creates no state", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a", "b"]));
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    const r = await env.once("--dry-run");
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /--- message 1 to @news_chan\n<b>Post a<\/b>\n<a href="https:\/\/example.org\/a">Link<\/a>/,
    );
    assert.match(r.stdout, /<b>Post b<\/b>/);
    assert.match(r.stdout, /^news\s+2\s+2\s+2\s+0$/m);
    assert.equal(env.bot.requests, 0);
    await assert.rejects(Deno.stat(`${env.dir}/data`), Deno.errors.NotFound);
  }));

Deno.test("once --dry-run after a real run shows only what is new, and changes nothing", () =>
  withEnv(async (env) => {
    env.feeds.fail("/news.xml", 404);
    env.feeds.set("/n.xml", items(["a"]));
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/n.xml"))] });
    assert.equal((await env.once()).code, 0);
    env.feeds.set("/n.xml", items(["a", "b"]));
    const db = `${env.dir}/data/feed_data/courier.db`;
    const before = await Deno.readFile(db);
    const r = await env.once("--dry-run");
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /Post a/);
    assert.match(r.stdout, /Post b/);
    assert.deepEqual(await Deno.readFile(db), before);
    assert.equal(env.bot.messages().length, 1);
  }));

Deno.test("once: a second process on the same data_dir exits 1 naming the holder", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a"]));
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    const lock = await acquireLock(`${env.dir}/data`);
    try {
      const r = await env.once();
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`another courier process \\(pid ${Deno.pid}\\)`));
      assert.equal(env.bot.requests, 0);
    } finally {
      lock.release();
    }
    assert.equal((await env.once()).code, 0);
  }));

Deno.test("once: a rejected token (401) stops the run with exit 1 and no token shown", () =>
  withEnv(async (env) => {
    env.feeds.set("/a.xml", items(["a1", "a2"]));
    env.feeds.set("/b.xml", items(["b1"]));
    await env.writeConfig({
      feeds: [
        feed("a", env.feeds.url("/a.xml")),
        feed("b", env.feeds.url("/b.xml"), { channel: "@other_chan" }),
      ],
    });
    env.bot.inject({ kind: "unauthorized", times: Infinity });
    const r = await env.once();
    assert.equal(r.code, 1);
    assert.match(r.stderr, /401/);
    assert.equal(env.bot.messages().length, 0);
    assert.deepEqual(await env.lastSuccess(), {});
  }));

Deno.test("once: chat not found fails that feed only; its entries go on the next run", () =>
  withEnv(async (env) => {
    env.feeds.set("/lost.xml", items(["l1", "l2"]));
    env.feeds.set("/fine.xml", items(["f1"]));
    await env.writeConfig({
      feeds: [
        feed("lost", env.feeds.url("/lost.xml"), { channel: "@lost_chan" }),
        feed("fine", env.feeds.url("/fine.xml"), { channel: "@fine_chan" }),
      ],
    });
    env.bot.inject({ kind: "chat_not_found", chat: "@lost_chan" });
    const r = await env.once();
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^lost\s+2\s+2\s+0\s+2\s+chat @lost_chan: 400 Bad Request: chat not found; check that /m,
    );
    // What to check, in the feed's error: the usual set-up mistakes.
    assert.ok(
      r.stdout.includes(
        "chat not found; check that the bot is an administrator of the channel and that the " +
          "name is spelt as in its t.me link (a private channel has no name: use its -100... id)",
      ),
      r.stdout,
    );
    assert.deepEqual(bolds(env.bot, "@fine_chan"), ["Post f1"]);
    assert.equal((await env.once()).code, 0);
    assert.deepEqual(bolds(env.bot, "@lost_chan"), ["Post l1", "Post l2"]);
    assert.deepEqual(bolds(env.bot, "@fine_chan"), ["Post f1"]);
  }));

Deno.test("once: 500s are retried and 429s waited out; nothing is lost or doubled", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a", "b", "c"]));
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    env.bot.inject({ kind: "500" });
    env.bot.inject({ kind: "429", retryAfter: 1 });
    const r = await env.once();
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(bolds(env.bot), ["Post a", "Post b", "Post c"]);
    assert.match(r.stderr, /retrying/);
    assert.match(r.stderr, /slow down/);
  }));

Deno.test("once: a migrated chat is followed, remembered and used next time", () =>
  withEnv(async (env) => {
    env.feeds.set("/g.xml", items(["a"]));
    await env.writeConfig({
      feeds: [feed("group", env.feeds.url("/g.xml"), { channel: "-4242" })],
    });
    env.bot.inject({ kind: "migrate", chat: "-4242", migrateTo: "-1004242" });
    const r = await env.once();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /migrated/);
    env.feeds.set("/g.xml", items(["a", "b"]));
    assert.equal((await env.once()).code, 0);
    assert.deepEqual(bolds(env.bot, "-1004242"), ["Post a", "Post b"]);
    assert.equal(env.bot.messages("-4242").length, 0);
    const store = (await Store.open(`${env.dir}/data/feed_data`))!;
    try {
      assert.deepEqual(await store.chatMigrations(), new Map([["-4242", "-1004242"]]));
    } finally {
      store.close();
    }
  }));

Deno.test("once --feed runs only the named feeds; an unknown name is a usage error", () =>
  withEnv(async (env) => {
    env.feeds.set("/a.xml", items(["a"]));
    env.feeds.set("/b.xml", items(["b"]));
    await env.writeConfig({
      feeds: [feed("a", env.feeds.url("/a.xml")), feed("b", env.feeds.url("/b.xml"))],
    });
    const r = await env.once("--feed", "b");
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(bolds(env.bot), ["Post b"]);
    assert.doesNotMatch(r.stdout, /^a\s/m);
    const bad = await env.once("--feed", "nope");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /no feed named "nope"/);
  }));

Deno.test("once: config and usage errors exit 2 without doing anything", () =>
  withEnv(async (env) => {
    await Deno.writeTextFile(env.config, "feeds: []\nbogus: 1\n");
    const r = await env.once();
    assert.equal(r.code, 2);
    assert.match(r.stderr, /config\.yml:\d+:\d+/);
    const c = await env.once("--concurrency", "0");
    assert.equal(c.code, 2);
    assert.match(c.stderr, /--concurrency must be a positive integer/);
    const m = await runCli(["once", "-c", env.config, "--messenger-api", "ftp://x"]);
    assert.equal(m.code, 2);
    assert.equal(env.bot.requests, 0);
  }));

Deno.test("once: $COURIER_MESSENGER_API and $COURIER_CONFIG are honoured", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a"]));
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    const r = await runCli(["once"], {
      cwd: env.dir,
      env: { COURIER_MESSENGER_API: env.bot.url, COURIER_CONFIG: env.config },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(env.bot.messages().length, 1);
  }));
