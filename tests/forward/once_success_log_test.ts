import assert from "node:assert/strict";
import { runOnce } from "../../src/forward/once.ts";
import type { ForwardState, SuccessLog } from "../../src/forward/feed_run.ts";
import { Store } from "../../src/store/db.ts";
import { LastSuccessFile, readLastSuccess } from "../../src/store/last_success.ts";
import {
  deferred,
  makeEntry,
  makeFeed,
  memoryLogger,
  RecordingOutbox,
  StubReader,
} from "../support/forward_stubs.ts";

const url = (name: string) => `https://feeds.example/${name}.xml`;

/** Logs every call, in order. */
class EventLog implements SuccessLog {
  events: string[] = [];
  record(feed: string) {
    this.events.push(`record ${feed}`);
    return Promise.resolve();
  }
  writeNow() {
    this.events.push("writeNow");
  }
}

/** Runs `test` with a fresh database in a temp directory, removed afterwards. */
async function withStore(test: (store: Store, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const store = (await Store.open(dir))!;
  try {
    await test(store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("runOnce tells the success log to write once the last feed settled, even a failed one", () =>
  withStore(async (store) => {
    const reader = new StubReader();
    reader.feeds.set(url("a"), [makeEntry("a1")]);
    reader.feeds.set(url("b"), [makeEntry("b1")]);
    reader.feeds.set(url("bad"), new Error("https://feeds.example/bad.xml: HTTP 500"));
    const log = new EventLog();
    // The failing feed is held back until both others recorded their success.
    const gate = deferred();
    reader.gates.set(url("bad"), gate.promise);
    const record = log.record.bind(log);
    log.record = (feed: string) => {
      const done = record(feed);
      if (log.events.filter((e) => e.startsWith("record")).length === 2) gate.resolve();
      return done;
    };
    const r = await runOnce({
      feeds: [makeFeed("a"), makeFeed("bad"), makeFeed("b", { channel: "@other" })],
      read: reader.read,
      state: store,
      outbox: new RecordingOutbox(),
      successLog: log,
      logger: memoryLogger().logger,
      concurrency: 4,
    });
    assert.equal(r.results[1].error, "https://feeds.example/bad.xml: HTTP 500");
    assert.deepEqual(log.events.slice(0, 2).sort(), ["record a", "record b"]);
    assert.deepEqual(log.events.slice(2), ["writeNow"]);
  }));

Deno.test("the state's end-of-run write starts with the success log's, not after it", () =>
  withStore(async (store) => {
    const reader = new StubReader();
    reader.feeds.set(url("a"), [makeEntry("a1")]);
    reader.feeds.set(url("b"), [makeEntry("b1")]);
    await runOnce({
      feeds: [makeFeed("a"), makeFeed("b")],
      read: reader.read,
      state: store,
      outbox: new RecordingOutbox(),
      successLog: new EventLog(),
      logger: memoryLogger().logger,
      concurrency: 2,
    });
    const events: string[] = [];
    // The file's writes finish a task later than they were asked for, like real file I/O.
    const log: SuccessLog = {
      record: (feed) =>
        new Promise((resolve) =>
          setTimeout(() => {
            events.push(`written ${feed}`);
            resolve();
          }, 0)
        ),
      writeNow: () => events.push("writeNow"),
    };
    const state: ForwardState = {
      lookup: (feed, ids) => store.lookup(feed, ids),
      validators: (feed) => store.validators(feed),
      recordFirstSighting: (feed, skipped, at) => store.recordFirstSighting(feed, skipped, at),
      recordFiltered: (feed, filtered, at) => store.recordFiltered(feed, filtered, at),
      markSent: (feed, entry, chat, id, at) => store.markSent(feed, entry, chat, id, at),
      markRefused: (feed, entry, chat, at) => store.markRefused(feed, entry, chat, at),
      finishRun: (run, validators) => store.finishRun(run, validators),
      flush: () => {
        events.push("state flush");
        return store.flush();
      },
    };
    await runOnce({
      feeds: [makeFeed("a"), makeFeed("b")],
      read: reader.read,
      state,
      outbox: new RecordingOutbox(),
      successLog: log,
      logger: memoryLogger().logger,
      concurrency: 2,
    });
    assert.deepEqual(events, ["writeNow", "state flush", "written a", "written b"]);
    assert.deepEqual(await store.query("SELECT feed, run_count FROM runs ORDER BY id"), [
      ["a", 1],
      ["b", 1],
      ["a", 1],
      ["b", 1],
    ]);
  }));

Deno.test("a run does not wait for the last-success file's next write slot", () =>
  withStore(async (store, dir) => {
    const reader = new StubReader();
    for (const name of ["a", "b", "c"]) reader.feeds.set(url(name), [makeEntry(`${name}1`)]);
    // Slots an hour apart: only writeNow (and flush) can get the later records written.
    const file = new LastSuccessFile(`${dir}/last.yml`, { spacingMs: 3_600_000 });
    const r = await runOnce({
      feeds: ["a", "b", "c"].map((name) => makeFeed(name, { channel: `@${name}` })),
      read: reader.read,
      state: store,
      outbox: new RecordingOutbox(),
      successLog: file,
      logger: memoryLogger().logger,
      concurrency: 1,
    });
    assert.ok(r.results.every((x) => x.error === null));
    assert.deepEqual([...(await readLastSuccess(`${dir}/last.yml`)).keys()].sort(), [
      "a",
      "b",
      "c",
    ]);
  }));
