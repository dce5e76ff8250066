import assert from "node:assert/strict";
import { runOnce } from "../../src/forward/once.ts";
import { readOnlyState } from "../../src/forward/dry_run.ts";
import { formatSummary } from "../../src/forward/summary.ts";
import { ChatError, MessengerFatalError } from "../../src/messenger/errors.ts";
import { Store } from "../../src/store/db.ts";
import { LastSuccessFile } from "../../src/store/last_success.ts";
import type { FeedSettings } from "../../src/config/types.ts";
import {
  deferred,
  makeEntry,
  makeFeed,
  memoryLogger,
  RecordingOutbox,
  StubReader,
} from "../support/forward_stubs.ts";

class MemorySuccessLog {
  times = new Map<string, Date>();
  record(feed: string, at: Date) {
    this.times.set(feed, at);
    return Promise.resolve();
  }
}

async function harness() {
  const dir = await Deno.makeTempDir();
  const store = (await Store.open(dir))!;
  const reader = new StubReader();
  const outbox = new RecordingOutbox();
  const successLog = new MemorySuccessLog();
  const { logger, lines } = memoryLogger();
  const run = (feeds: FeedSettings[], extra: Partial<Parameters<typeof runOnce>[0]> = {}) =>
    runOnce({
      feeds,
      read: reader.read,
      state: store,
      outbox,
      successLog,
      logger,
      concurrency: 4,
      ...extra,
    });
  return { dir, store, reader, outbox, successLog, lines, run };
}

const url = (name: string) => `https://feeds.example/${name}.xml`;

Deno.test("first run sends all in order; a second sends nothing; a new entry goes once", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("news");
    h.reader.feeds.set(url("news"), [makeEntry("a", 1), makeEntry("b", 2), makeEntry("c", 3)]);
    const first = await h.run([feed]);
    assert.deepEqual(h.outbox.titles(), ["a", "b", "c"]);
    assert.deepEqual(first.results[0], {
      feed: "news",
      channel: "@chan_main",
      fetched: 3,
      new: 3,
      sent: 3,
      failed: 0,
      skipped: 0,
      refused: 0,
      filtered: 0,
      error: null,
    });
    assert.ok(h.successLog.times.has("news"));

    const second = await h.run([feed]);
    assert.equal(second.results[0].sent, 0);
    assert.equal(h.outbox.sent.length, 3);

    h.reader.feeds.set(url("news"), [
      makeEntry("a", 1),
      makeEntry("b", 2),
      makeEntry("c", 3),
      makeEntry("d", 4),
    ]);
    await h.run([feed]);
    await h.run([feed]);
    assert.deepEqual(h.outbox.titles(), ["a", "b", "c", "d"]);
    const rows = await h.store.query(
      "SELECT outcome, sent FROM runs WHERE feed = 'news' ORDER BY id",
    );
    assert.deepEqual(rows, [["ok", 3], ["ok", 0], ["ok", 1], ["ok", 0]]);
  } finally {
    h.store.close();
  }
});

Deno.test("first sighting with a limit sends the newest N; later entries all go", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("limited", { firstTimeLimit: 2 });
    const five = ["a", "b", "c", "d", "e"].map((id, i) => makeEntry(id, i));
    h.reader.feeds.set(url("limited"), five);
    const first = await h.run([feed]);
    assert.deepEqual(h.outbox.titles(), ["d", "e"]);
    assert.equal(first.results[0].skipped, 3);
    assert.equal(first.results[0].new, 2);
    h.reader.feeds.set(url("limited"), [
      ...five,
      makeEntry("f", 6),
      makeEntry("g", 7),
      makeEntry("h", 8),
    ]);
    await h.run([feed]);
    // Not a first sighting any more: every new entry goes, whatever the limit.
    assert.deepEqual(h.outbox.titles(), ["d", "e", "f", "g", "h"]);
    const skipped = await h.store.query(
      "SELECT entry_id FROM entries WHERE status = 'skipped' ORDER BY entry_id",
    );
    assert.deepEqual(skipped.flat(), ["a", "b", "c"]);
  } finally {
    h.store.close();
  }
});

Deno.test("first sighting with limit 0 sends nothing and records everything as seen", async () => {
  const h = await harness();
  try {
    h.reader.feeds.set(url("quiet"), [makeEntry("a", 1), makeEntry("b", 2)]);
    const r = await h.run([makeFeed("quiet", { firstTimeLimit: 0 })]);
    assert.equal(r.results[0].sent, 0);
    assert.equal(r.results[0].skipped, 2);
    assert.equal(r.results[0].error, null);
    assert.equal(h.outbox.sent.length, 0);
  } finally {
    h.store.close();
  }
});

Deno.test("a feed that fails to fetch does not stop the others and records no success", async () => {
  const h = await harness();
  try {
    h.reader.feeds.set(url("good"), [makeEntry("g1")]);
    h.reader.feeds.set(url("bad"), new Error("https://feeds.example/bad.xml: HTTP 500"));
    const r = await h.run([makeFeed("bad"), makeFeed("good")]);
    assert.equal(r.results[0].error, "https://feeds.example/bad.xml: HTTP 500");
    assert.equal(r.results[1].error, null);
    assert.deepEqual(h.outbox.titles(), ["g1"]);
    assert.deepEqual([...h.successLog.times.keys()], ["good"]);
    assert.equal((await h.store.lookup("bad", [])).known, false);
    assert.ok(h.lines.some((l) => l.includes("feed failed") && l.includes("feed=bad")));
    assert.match(
      formatSummary(r.results),
      /bad\s+0\s+0\s+0\s+0\s+https:\/\/feeds\.example\/bad\.xml: HTTP 500/,
    );
  } finally {
    h.store.close();
  }
});

Deno.test("a chat error fails the feed, keeps the rest unsent, and the next run sends them", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("news");
    h.reader.feeds.set(url("news"), ["a", "b", "c", "d"].map((id, i) => makeEntry(id, i)));
    h.outbox.failOn = (chat, _m, index) =>
      index === 2
        ? new ChatError(`chat ${chat}: 400 Bad Request: chat not found`, chat, 400)
        : null;
    const first = await h.run([feed]);
    assert.equal(first.results[0].sent, 2);
    assert.equal(first.results[0].failed, 2);
    assert.equal(first.results[0].error, "chat @chan_main: 400 Bad Request: chat not found");
    assert.equal(h.successLog.times.size, 0);
    assert.equal((await h.store.validators("news")).size, 0, "validators kept back");
    h.outbox.failOn = null;
    const second = await h.run([feed]);
    assert.equal(second.results[0].error, null);
    assert.deepEqual(h.outbox.titles(), ["a", "b", "c", "d"]);
    assert.equal((await h.store.validators("news")).size, 1);
    assert.deepEqual(h.reader.calls[1].validators, new Map(), "first retry still fetched in full");
    assert.deepEqual(
      h.reader.calls[1].validators?.size === 0 ? await h.store.validators("news") : null,
      new Map([[url("news"), { etag: '"4"', lastModified: null, bodyHash: null }]]),
    );
  } finally {
    h.store.close();
  }
});

Deno.test("stored validators are handed to the reader", async () => {
  const h = await harness();
  try {
    h.reader.feeds.set(url("news"), [makeEntry("a")]);
    await h.run([makeFeed("news")]);
    await h.run([makeFeed("news")]);
    assert.deepEqual(
      h.reader.calls[1].validators,
      new Map([[url("news"), { etag: '"1"', lastModified: null, bodyHash: null }]]),
    );
  } finally {
    h.store.close();
  }
});

Deno.test("a 401 stops every feed and is reported once", async () => {
  const h = await harness();
  try {
    h.reader.feeds.set(url("one"), [makeEntry("a")]);
    const gate = deferred();
    h.reader.feeds.set(url("two"), [makeEntry("b")]);
    h.reader.gates.set(url("two"), gate.promise);
    h.outbox.failOn = () =>
      new MessengerFatalError("messenger rejected the bot token (401 Unauthorized)");
    // Feed two is held at its gate and never released: the 401 must stop it.
    const r = await h.run([makeFeed("one"), makeFeed("two", { channel: "@chan_other" })]);
    assert.match(r.fatal ?? "", /401/);
    assert.match(r.results[0].error ?? "", /401/);
    assert.equal(r.results[0].failed, 1);
    assert.match(r.results[1].error ?? "", /^stopped: .*401/);
    gate.resolve();
    assert.equal(h.successLog.times.size, 0);
  } finally {
    h.store.close();
  }
});

Deno.test("feeds sharing a channel deliver in config order, one after the other", async () => {
  const h = await harness();
  try {
    const gate = deferred();
    h.reader.feeds.set(url("first"), [makeEntry("f1", 1), makeEntry("f2", 2)]);
    h.reader.feeds.set(url("second"), [makeEntry("s1", 0), makeEntry("s2", 3)]);
    h.reader.feeds.set(url("elsewhere"), [makeEntry("e1")]);
    // "first" is slow to fetch; "second" must still wait for it, "elsewhere" must not.
    h.reader.gates.set(url("first"), gate.promise);
    let elsewhereDone!: () => void;
    const elsewhere = new Promise<void>((r) => (elsewhereDone = r));
    const pending = h.run(
      [makeFeed("first"), makeFeed("second"), makeFeed("elsewhere", { channel: "@chan_b" })],
      { onFeedDone: (r) => r.feed === "elsewhere" && elsewhereDone() },
    );
    await elsewhere;
    assert.deepEqual(h.outbox.titles(), ["e1"]);
    gate.resolve();
    await pending;
    assert.deepEqual(h.outbox.titles("@chan_main"), ["f1", "f2", "s1", "s2"]);
  } finally {
    h.store.close();
  }
});

/**
 * Runs `count` feeds (each on its own server, or all on one) with their reads held until
 * `started` of them have begun (a read more would begin beside them if it could); resolves
 * with the most reads that were under way at once.
 */
async function mostAtOnce(
  options: { count: number; ownServers: boolean; started: number; concurrency: number },
) {
  const h = await harness();
  try {
    const feeds = Array.from({ length: options.count }, (_, i) =>
      makeFeed(`f${i}`, {
        channel: `@chan_${i}`,
        ...(options.ownServers ? { urls: [`https://host${i}.example/f${i}.xml`] } : {}),
      }));
    const gate = deferred();
    for (const f of feeds) {
      h.reader.feeds.set(f.urls[0], [makeEntry(`${f.name}-x`)]);
      h.reader.gates.set(f.urls[0], gate.promise);
    }
    h.reader.onCall = (n) => n === options.started && gate.resolve();
    const r = await h.run(feeds, { concurrency: options.concurrency });
    assert.equal(r.results.filter((x) => x.error === null).length, options.count);
    return h.reader.maxActive;
  } finally {
    h.store.close();
  }
}

Deno.test("no more than `concurrency` feeds fetch at once", async () => {
  // Each on a server of its own: one server may take only half the slots (fetch_slots.ts).
  const most = await mostAtOnce({ count: 12, ownServers: true, started: 3, concurrency: 3 });
  assert.equal(most, 3);
});

Deno.test("feeds of one server start on half the slots, and take them all once it answered fast", async () => {
  // The first two (half of 4) are held until both started: a third would make it three.
  const most = await mostAtOnce({ count: 8, ownServers: false, started: 2, concurrency: 4 });
  assert.equal(most, 4);
});

Deno.test("a migrated chat is used for the feed's channel", async () => {
  const h = await harness();
  try {
    h.reader.feeds.set(url("grp"), [makeEntry("a")]);
    await h.run([makeFeed("grp", { channel: "-4242" })], {
      migrations: new Map([["-4242", "-1004242"]]),
    });
    assert.deepEqual(h.outbox.sent.map((m) => m.chat), ["-1004242"]);
  } finally {
    h.store.close();
  }
});

Deno.test("a dry run over the state reads but changes nothing", async () => {
  const h = await harness();
  try {
    h.reader.feeds.set(url("news"), [makeEntry("a", 1)]);
    await h.run([makeFeed("news")]);
    h.reader.feeds.set(url("news"), [makeEntry("a", 1), makeEntry("b", 2)]);
    const before = await h.store.query("SELECT count(*) FROM runs");
    const r = await h.run([makeFeed("news")], { state: readOnlyState(h.store) });
    assert.equal(r.results[0].sent, 1);
    assert.deepEqual(h.outbox.titles(), ["a", "b"]);
    assert.deepEqual(await h.store.query("SELECT count(*) FROM runs"), before);
    assert.deepEqual([...(await h.store.lookup("news", ["a", "b"])).seen], ["a"]);
  } finally {
    h.store.close();
  }
});

Deno.test("a message the state cannot record counts as sent; the feed stops there, naming the file", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("news");
    h.reader.feeds.set(url("news"), [makeEntry("a", 1)]);
    assert.equal((await h.run([feed])).results[0].sent, 1);
    // SQLite's page limit on the store's own connection: the next write that needs a page
    // fails with SQLITE_FULL, as on a full disk (tests/cli/once_store_failure_test.ts fills a
    // real one). Long titles make each entry's row need new pages.
    const [[pages]] = await h.store.query("PRAGMA page_count");
    await h.store.query(`PRAGMA max_page_count = ${Number(pages)}`);
    const long = (id: string, minute: number) => ({
      ...makeEntry(id, minute),
      title: id.repeat(20_000),
    });
    h.reader.feeds.set(url("news"), [makeEntry("a", 1), long("b", 2), long("c", 3)]);
    const { results: [result] } = await h.run([feed]);
    assert.equal(h.outbox.sent.length, 2, "b went out");
    assert.equal(result.sent, 1);
    assert.equal(result.failed, 1);
    assert.equal(result.step, "record");
    assert.equal(
      result.error,
      `cannot record a sent message in ${h.store.path}: disk full; 1 message may be sent again`,
    );
    assert.match(formatSummary([result]), /; 1 sent$/m);
  } finally {
    h.store.close();
  }
});

Deno.test("a last-success file that cannot be written fails every feed that waited for it, once each", async () => {
  const h = await harness();
  try {
    // Its directory is a file: the write (shared by both feeds' records) fails.
    await Deno.writeTextFile(`${h.dir}/blocked`, "");
    const path = `${h.dir}/blocked/last_success.yml`;
    h.reader.feeds.set(url("a"), [makeEntry("a1", 1)]);
    h.reader.feeds.set(url("b"), [makeEntry("b1", 1)]);
    const { results } = await h.run([makeFeed("a"), makeFeed("b")], {
      successLog: new LastSuccessFile(path),
    });
    for (const result of results) {
      assert.equal(result.step, "record");
      // The file is read by its first write: that is where it fails here.
      assert.ok(result.error?.startsWith(`cannot read ${path}: `), result.error ?? "");
    }
    const failed = h.lines.filter((l) => l.includes('msg="feed failed"'));
    assert.equal(failed.length, 2);
    assert.ok(failed.every((l) => l.includes("step=record")));
  } finally {
    h.store.close();
  }
});
