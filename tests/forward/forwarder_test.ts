import assert from "node:assert/strict";
import { Forwarder, type ForwarderOptions } from "../../src/forward/forwarder.ts";
import { readFeed } from "../../src/feeds/read.ts";
import { ServerPauses } from "../../src/feeds/retry_after.ts";
import { MessengerFatalError } from "../../src/messenger/errors.ts";
import type { SendOptions } from "../../src/messenger/bot_api.ts";
import type { Message } from "../../src/messenger/format.ts";
import { Store } from "../../src/store/db.ts";
import {
  deferred,
  makeEntry,
  makeFeed,
  memoryLogger,
  RecordingOutbox,
  StubReader,
} from "../support/forward_stubs.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { FIXTURES } from "../support/feed_server.ts";

const url = (name: string) => `https://feeds.example/${name}.xml`;

async function harness(extra: Partial<ForwarderOptions> = {}) {
  const dir = await Deno.makeTempDir();
  const store = (await Store.open(dir))!;
  const reader = new StubReader();
  const outbox = new RecordingOutbox();
  const { logger, lines } = memoryLogger();
  const forwarder = new Forwarder({
    read: reader.read,
    state: store,
    outbox,
    successLog: { record: () => Promise.resolve() },
    logger,
    concurrency: 4,
    ...extra,
  });
  const close = async () => {
    store.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { store, reader, outbox, lines, forwarder, close };
}

Deno.test("forwarder that continues: a 401 fails the feed each time, logs each time, stops nothing", async () => {
  const h = await harness({ onUnauthorized: "continue" });
  try {
    h.reader.feeds.set(url("bad"), [makeEntry("a")]);
    h.reader.feeds.set(url("good"), [makeEntry("g")]);
    h.outbox.failOn = (chat) =>
      chat === "@bad" ? new MessengerFatalError("messenger rejected the bot token (401)") : null;
    const feeds = [makeFeed("bad", { channel: "@bad" }), makeFeed("good", { channel: "@good" })];
    const first = await h.forwarder.run(feeds);
    assert.match(first.fatal ?? "", /401/);
    assert.match(first.results[0].error ?? "", /401/);
    assert.equal(first.results[1].error, null, "the other feed is not stopped");
    assert.deepEqual(h.outbox.titles("@good"), ["g"]);

    const second = await h.forwarder.run([feeds[0]]);
    assert.match(second.results[0].error ?? "", /401/);
    assert.equal(h.forwarder.signal.aborted, false);
    const refused = h.lines.filter((l) => l.includes("messenger refused the bot"));
    assert.equal(refused.length, 2, refused.join("\n"));

    // The token is fixed: the next run sends what the refused ones left.
    h.outbox.failOn = null;
    const third = await h.forwarder.run([feeds[0]]);
    assert.equal(third.results[0].error, null);
    assert.deepEqual(h.outbox.titles("@bad"), ["a"]);
  } finally {
    await h.close();
  }
});

Deno.test("forwarder that stops: after a 401 every later run is stopped too", async () => {
  const h = await harness({ onUnauthorized: "stop" });
  try {
    h.reader.feeds.set(url("one"), [makeEntry("a")]);
    h.outbox.failOn = () => new MessengerFatalError("messenger rejected the bot token (401)");
    await h.forwarder.run([makeFeed("one")]);
    assert.equal(h.forwarder.signal.aborted, true);
    h.outbox.failOn = null;
    const later = await h.forwarder.run([makeFeed("one")]);
    assert.match(later.results[0].error ?? "", /^stopped: .*401/);
    assert.equal(h.outbox.sent.length, 0);
  } finally {
    await h.close();
  }
});

Deno.test("forwarder: the outside signal stops the feeds in flight", async () => {
  const outside = new AbortController();
  const h = await harness({ signal: outside.signal });
  try {
    const gate = deferred();
    h.reader.feeds.set(url("slow"), [makeEntry("a")]);
    h.reader.gates.set(url("slow"), gate.promise);
    // Once the read waits at its gate.
    h.reader.onCall = () => queueMicrotask(() => outside.abort(new Error("SIGTERM")));
    const r = await h.forwarder.run([makeFeed("slow")]);
    assert.equal(r.results[0].error, "stopped: SIGTERM");
    assert.equal(h.outbox.sent.length, 0);
    gate.resolve();
  } finally {
    await h.close();
  }
});

Deno.test("forwarder: runs share the channel turns and the fetch bound", async () => {
  const h = await harness({ concurrency: 1 });
  try {
    const gate = deferred();
    h.reader.feeds.set(url("early"), [makeEntry("e1", 1), makeEntry("e2", 2)]);
    h.reader.feeds.set(url("late"), [makeEntry("l1", 0)]);
    h.reader.gates.set(url("early"), gate.promise);
    const early = h.forwarder.run([makeFeed("early")]);
    // Started while the first run is still fetching, on the same channel.
    const late = h.forwarder.run([makeFeed("late")]);
    gate.resolve();
    await Promise.all([early, late]);
    assert.deepEqual(h.outbox.titles(), ["e1", "e2", "l1"], "the earlier run's feed goes first");
    assert.equal(h.reader.maxActive, 1, "one fetch at a time across runs");
  } finally {
    await h.close();
  }
});

Deno.test("forwarder: a chat migration learnt in one run is followed by the next", async () => {
  const migrations = new Map([["@old", "-100200"]]);
  const h = await harness({ migrations });
  try {
    h.reader.feeds.set(url("m"), [makeEntry("a")]);
    await h.forwarder.run([makeFeed("m", { channel: "@old" })]);
    migrations.set("-100200", "-100300");
    h.reader.feeds.set(url("m"), [makeEntry("a"), makeEntry("b", 5)]);
    await h.forwarder.run([makeFeed("m", { channel: "@old" })]);
    assert.deepEqual(h.outbox.sent.map((m) => m.chat), ["-100200", "-100300"]);
  } finally {
    await h.close();
  }
});

Deno.test("forwarder: runs and entries carry the injected clock's time", async () => {
  const clock = new ManualClock(Date.UTC(2031, 5, 1, 8, 0));
  const h = await harness({ clock });
  try {
    h.reader.feeds.set(url("t"), [makeEntry("a")]);
    await h.forwarder.run([makeFeed("t")]);
    assert.deepEqual(await h.store.query("SELECT started_at, finished_at FROM runs"), [[
      "2031-06-01T08:00:00.000Z",
      "2031-06-01T08:00:00.000Z",
    ]]);
    assert.deepEqual(await h.store.query("SELECT sent_at FROM entries"), [[
      "2031-06-01T08:00:00.000Z",
    ]]);
  } finally {
    await h.close();
  }
});

Deno.test("forwarder: a server's Retry-After fails its feed until then; other feeds go on", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0));
  const pauses = new ServerPauses(clock);
  let limitedHits = 0;
  const limited = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    limitedHits++;
    return new Response("", { status: 429, headers: { "retry-after": "600" } });
  });
  const fine = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async () => new Response(await Deno.readFile(`${FIXTURES}wordpress.xml`)),
  );
  const h = await harness({ read: readFeed, pauses, clock });
  try {
    const feeds = [
      makeFeed("limited", { urls: [`http://127.0.0.1:${limited.addr.port}/feed`] }),
      makeFeed("fine", { urls: [`http://127.0.0.1:${fine.addr.port}/feed`], channel: "@other" }),
    ];
    const first = await h.forwarder.run(feeds);
    assert.match(
      first.results[0].error ?? "",
      /\/feed: HTTP 429 Too Many Requests; not asked again before 2026-01-01T12:10:00Z$/,
    );
    assert.equal(first.results[1].error, null);
    assert.ok(first.results[1].sent > 0);

    await clock.advance(300_000);
    const second = await h.forwarder.run(feeds);
    assert.match(second.results[0].error ?? "", /not fetched: .* before 2026-01-01T12:10:00Z$/);
    assert.equal(second.results[1].error, null);
    assert.equal(limitedHits, 1, "not asked again before its time");
  } finally {
    await h.close();
    await limited.shutdown();
    await fine.shutdown();
  }
});

Deno.test("forwarder with a fence: each send carries its run's tenure; a send not recorded distrusts", async () => {
  const tenures: string[] = [];
  let distrusted = 0;
  const outboxUntil: number[] = [];
  const recording = new RecordingOutbox();
  const h = await harness({
    outbox: {
      send: (chat: string, message: Message, _signal?: AbortSignal, options?: SendOptions) => {
        outboxUntil.push(options?.until?.() ?? NaN);
        return recording.send(chat, message);
      },
    },
    fence: {
      tenure: (channel) => {
        tenures.push(channel);
        return () => 42;
      },
      distrust: () => distrusted++,
    },
  });
  try {
    h.reader.feeds.set(url("news"), [makeEntry("n1"), makeEntry("n2")]);
    const feed = makeFeed("news", { channel: "@news" });
    const first = await h.forwarder.run([feed]);
    assert.equal(first.results[0].error, null);
    assert.deepEqual(tenures, ["@news"], "taken once, when the run starts");
    assert.deepEqual(outboxUntil, [42, 42], "every send asks the run's tenure");
    assert.equal(distrusted, 0);
    // The database fails to record a send: every send stops until the lease is renewed.
    h.reader.feeds.set(url("news"), [makeEntry("n1"), makeEntry("n2"), makeEntry("n3")]);
    const markSent = h.store.markSent.bind(h.store);
    h.store.markSent = () => Promise.reject(new Error("database unreachable"));
    const second = await h.forwarder.run([feed]);
    h.store.markSent = markSent;
    assert.match(
      second.results[0].error ?? "",
      /database unreachable; 1 message may be sent again/,
    );
    assert.equal(distrusted, 1);
  } finally {
    await h.close();
  }
});
