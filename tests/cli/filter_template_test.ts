/**
 * Filters, silent posts, forum topics and templates, end to end: `courier once` in a process of
 * its own against local feeds and the fake Bot API.
 */
import assert from "node:assert/strict";
import type { Entry } from "../../src/model/entry.ts";
import { Store } from "../../src/store/db.ts";
import { runCli } from "../support/cli.ts";
import { withCliEnv } from "../support/cli_env.ts";
import { bounded } from "../support/deadline.ts";
import type { FakeBotApi } from "../support/fake_bot_api.ts";
import type { FeedItem } from "../support/once_feeds.ts";
import { legacyFormatMessage } from "../messenger/legacy_format.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

function feed(name: string, url: string, extra: Record<string, unknown> = {}) {
  return { name, channel: "@news_chan", url, cron: "*/5 * * * *", type: "rss", ...extra };
}

const withEnv = withCliEnv;

const bolds = (bot: FakeBotApi, chat?: string) => bot.messages(chat).map((m) => m.bold[0]);

const item = (id: string, title: string, extra: Partial<FeedItem> = {}): FeedItem => ({
  id,
  title,
  link: `https://example.org/${id}`,
  minute: Number(id.replace(/\D/g, "") || 0),
  ...extra,
});

async function entryStatuses(dir: string, feed: string): Promise<Record<string, string>> {
  const store = (await Store.open(`${dir}/data/feed_data`, { readOnly: true }))!;
  try {
    const rows = await store.query(
      "SELECT entry_id, status FROM entries WHERE feed = ? ORDER BY entry_id",
      [feed],
    );
    return Object.fromEntries(rows.map(([id, status]) => [String(id), String(status)]));
  } finally {
    store.close();
  }
}

Deno.test("filter: include and exclude by word, phrase and expression over title, categories and summary; dropped entries are never posted, also after the filter changes", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", [
      item("1", "Rust 1.80 released"), // include: word, in the title
      item("2", "Weekly digest", { categories: ["Web Assembly", "News"] }), // phrase, category
      item("3", "Standards corner", { summary: "All about rfc 9110 and more" }), // expression
      item("4", "Rust jobs: hiring now"), // include, then exclude: a word
      item("5", "Cooking pasta"), // no include
      item("6", "Trusted rustaceans"), // "rust" only inside words
      item("7", "Rust news", { categories: ["Sponsored content"] }), // exclude: phrase, category
    ]);
    await env.writeConfig({
      feeds: [feed("news", env.feeds.url("/news.xml"), {
        filter: {
          include: ["rust", "web assembly", "/\\bRFC ?\\d+/i"],
          exclude: ["hiring", "sponsored content"],
          fields: ["title", "categories", "summary"],
        },
      })],
    });
    const first = await env.run("once", "--log-level", "debug");
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(bolds(env.bot), ["Rust 1.80 released", "Weekly digest", "Standards corner"]);
    // --log-level debug names each dropped entry and why.
    const dropped = first.stderr.split("\n").filter((l) => l.includes("entry filtered out"));
    assert.equal(dropped.length, 4, first.stderr);
    assert.match(
      first.stderr,
      /msg="entry filtered out" feed=news entry=4 .*reason="excluded by \\"hiring\\" in title"/,
    );
    assert.match(
      first.stderr,
      /msg="entry filtered out" feed=news entry=5 .*reason="matches no include/,
    );
    assert.match(first.stderr, /entry=7 .*excluded by \\"sponsored content\\" in categories/);
    assert.deepEqual(await entryStatuses(env.dir, "news"), {
      1: "sent",
      2: "sent",
      3: "sent",
      4: "filtered",
      5: "filtered",
      6: "filtered",
      7: "filtered",
    });
    const status = await env.run("status", "--json");
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout)[0].filtered_total, 4);
    assert.equal(JSON.parse(status.stdout)[0].sent_total, 3);
    const table = await env.run("status");
    assert.match(table.stdout, /^ {2}filtered: 4 entries dropped by its filter$/m);

    // The filter is lifted: the new entry goes, the dropped ones stay dropped.
    env.feeds.set("/news.xml", [
      item("1", "Rust 1.80 released"),
      item("4", "Rust jobs: hiring now"),
      item("5", "Cooking pasta"),
      item("8", "Cooking again"),
    ]);
    await env.writeConfig({
      feeds: [feed("news", env.feeds.url("/news.xml"), { filter: {} })],
    });
    const second = await env.run("once");
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(bolds(env.bot).slice(3), ["Cooking again"]);
  }));

Deno.test("filter: a top-level filter applies to feeds without their own, and runs before the first-sighting limit", () =>
  withEnv(async (env) => {
    const items = [
      item("1", "Alpha"),
      item("2", "Sponsored: beta"),
      item("3", "Gamma"),
      item("4", "Sponsored: delta"),
    ];
    env.feeds.set("/a.xml", items);
    env.feeds.set("/b.xml", items);
    await env.writeConfig({
      filter: { exclude: ["sponsored"] },
      first_time_limit: 2,
      feeds: [
        feed("a", env.feeds.url("/a.xml"), { channel: "@a_chan" }),
        feed("b", env.feeds.url("/b.xml"), { channel: "@b_chan", filter: { include: ["beta"] } }),
      ],
    });
    const r = await env.run("once");
    assert.equal(r.code, 0, r.stderr);
    // The newest two the filter keeps, not the newest two of the feed.
    assert.deepEqual(bolds(env.bot, "@a_chan"), ["Alpha", "Gamma"]);
    assert.deepEqual(bolds(env.bot, "@b_chan"), ["Sponsored: beta"]);
  }));

Deno.test("silent and topic go out as disable_notification and message_thread_id", () =>
  withEnv(async (env) => {
    env.feeds.set("/f.xml", [item("1", "One"), item("2", "Two")]);
    env.bot.addTopic("-1001234567890", 7);
    await env.writeConfig({
      silent: true,
      feeds: [
        feed("forum", env.feeds.url("/f.xml"), { channel: "-1001234567890", topic: 7 }),
        feed("loud", env.feeds.url("/f.xml"), { channel: "@loud_chan", silent: false }),
      ],
    });
    const r = await env.run("once");
    assert.equal(r.code, 0, r.stderr);
    const forum = env.bot.messages("-1001234567890");
    assert.deepEqual(forum.map((m) => [m.bold[0], m.silent, m.threadId]), [
      ["One", true, 7],
      ["Two", true, 7],
    ]);
    const loud = env.bot.messages("@loud_chan");
    assert.deepEqual(loud.map((m) => [m.silent, m.threadId]), [[false, null], [false, null]]);
  }));

Deno.test("topic: a topic that does not exist fails the feed with a clear line and keeps its entries", () =>
  withEnv(async (env) => {
    env.feeds.set("/f.xml", [item("1", "One")]);
    env.feeds.set("/g.xml", [item("2", "Other")]);
    await env.writeConfig({
      feeds: [
        feed("forum", env.feeds.url("/f.xml"), { channel: "-1001234567890", topic: 99 }),
        feed("plain", env.feeds.url("/g.xml"), { channel: "@plain_chan" }),
      ],
    });
    const r = await env.run("once");
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /msg="feed failed" feed=forum .*step=send error="chat -1001234567890 topic 99: 400 Bad Request: message thread not found; the chat has no open forum topic 99: check the feed's topic"/,
    );
    assert.deepEqual(bolds(env.bot, "@plain_chan"), ["Other"], "the other feed went on");
    // Once the topic exists, the kept entry goes.
    env.bot.addTopic("-1001234567890", 99);
    const again = await env.run("once");
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(bolds(env.bot, "-1001234567890"), ["One"]);
  }));

/** The entry courier reads from an item served by once_feeds.ts. */
function served(it: FeedItem): Entry {
  return {
    id: it.id,
    link: it.link ?? null,
    title: it.title,
    published: new Date(Date.UTC(2024, 0, 1, 0, it.minute ?? 0)),
    updated: null,
    summary: "",
  };
}

const HOSTILE = [
  item("1", "a < b && c > d"),
  item("2", `</b><script>alert("x")</script> & <a href="evil">`),
  item("3", "😀👩‍👩‍👧 emoji & more " + "🦀".repeat(1500)),
  item("4", "x&".repeat(2500)),
  item("5", "Plain title"),
];

Deno.test("template: without one, the messages on the wire are today's, byte for byte", () =>
  withEnv(async (env) => {
    env.feeds.set("/f.xml", HOSTILE);
    await env.writeConfig({
      feeds: [
        feed("plain", env.feeds.url("/f.xml"), { channel: "@plain_chan" }),
        feed("iv", env.feeds.url("/f.xml"), {
          channel: "@iv_chan",
          title: "Read <more> & co",
          rhash: "abc123",
        }),
      ],
    });
    const r = await env.run("once");
    assert.equal(r.code, 0, r.stderr);
    const expected = (linkText: string, rhash: string) =>
      HOSTILE.map((it) => legacyFormatMessage(served(it), { linkText, rhash }).html);
    assert.deepEqual(env.bot.messages("@plain_chan").map((m) => m.html), expected("Link", ""));
    assert.deepEqual(
      env.bot.messages("@iv_chan").map((m) => m.html),
      expected("Read <more> & co", "abc123"),
    );
    assert.ok(env.bot.messages().every((m) => m.previewUrl === null && m.threadId === null));
  }));

Deno.test("template: a template of its own with hostile titles and summaries makes messages the fake's HTML check accepts, Instant View previewed", () =>
  withEnv(async (env) => {
    env.feeds.set(
      "/f.xml",
      HOSTILE.map((it) => ({
        ...it,
        summary: `${it.title} <i>not markup</i> & more`.repeat(3),
        categories: ["C++ & <Rust>", "web dev"],
      })),
    );
    await env.writeConfig({
      feeds: [feed("t", env.feeds.url("/f.xml"), {
        rhash: "abc123",
        template: "<b>{title}</b> {categories}\n<i>{date}</i> · {feed}\n" +
          '<blockquote>{summary:500}</blockquote>\n<a href="{link}">{link_text}</a>',
      })],
    });
    const r = await env.run("once");
    assert.equal(r.code, 0, r.stderr);
    const messages = env.bot.messages();
    // Accepted means parsed by the fake as Telegram parses it (else a 400 and a plain retry).
    assert.equal(messages.length, HOSTILE.length);
    assert.ok(!r.stderr.includes("refused"), r.stderr);
    for (const [i, m] of messages.entries()) {
      assert.ok(m.html.length <= 4096);
      assert.ok(m.text.includes("#C_Rust #web_dev"), m.text);
      assert.ok(m.text.includes("· t"));
      assert.equal(
        m.previewUrl,
        `https://t.me/iv?url=${encodeURIComponent(HOSTILE[i].link!)}&rhash=abc123`,
      );
    }
    assert.equal(messages[0].bold[0], "a < b && c > d");
    assert.ok(messages[3].bold[0].endsWith("…"), "the longest field was shortened");
  }));

Deno.test(
  "filter: a catastrophic-backtracking expression against a long hostile title, in a real run, finishes at once",
  bounded(60_000, async (deadline) =>
    await withEnv(async (env) => {
      env.feeds.set("/f.xml", [item("1", "a".repeat(50_000) + "!"), item("2", "aaa")]);
      await env.writeConfig({
        feeds: [feed("f", env.feeds.url("/f.xml"), { filter: { include: ["/(a+)+$/"] } })],
      });
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", MAIN, "once", "-c", env.config],
        env: { NO_COLOR: "1", COURIER_MESSENGER_API: env.bot.url },
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      try {
        const out = await deadline.within("courier once with a ReDoS filter", child.output());
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      } finally {
        try {
          child.kill("SIGKILL");
        } catch {
          // it has ended
        }
      }
      // JavaScript's engine would backtrack for ever on entry 1; RE2 says no at once.
      assert.deepEqual(bolds(env.bot), ["aaa"]);
    })),
);

Deno.test("filter: an expression is shown as written, escaped once by logfmt, in validate, preview and the log", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", [item("1", "Ad: buy now"), item("2", "Rust")]);
    const written = String.raw`/^ad\b/i`;
    await env.writeConfig({
      feeds: [feed("news", env.feeds.url("/news.xml"), { filter: { exclude: [written] } })],
    });
    const validate = await env.run("validate");
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(validate.stdout, /^ {2}exclude +"\/\^ad\\b\/i"$/m);
    const once = await env.run("once", "--log-level", "debug");
    assert.equal(once.code, 0, once.stderr);
    // logfmt escapes the quotes and the backslash once: \" and \\.
    assert.ok(
      once.stderr.includes(String.raw`reason="excluded by \"/^ad\\b/i\" in title"`),
      once.stderr,
    );
    await Deno.writeTextFile(
      `${env.dir}/feed.xml`,
      await (await fetch(env.feeds.url("/news.xml"))).text(),
    );
    const preview = await runCli([
      "preview",
      `${env.dir}/feed.xml`,
      "-c",
      env.config,
      "--feed",
      "news",
    ]);
    assert.equal(preview.code, 0, preview.stderr);
    assert.ok(
      preview.stdout.includes(`DROPPED: excluded by "${written}" in title`),
      preview.stdout,
    );
  }));
