import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { type RunRecord, Store } from "../../src/store/db.ts";
import { dbPath } from "../../src/store/location.ts";
import { acquireLock } from "../../src/store/lock.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { readFeedRecords as readAt } from "../../src/store/status.ts";
import { StoreError } from "../../src/store/failure.ts";
import { runRecord, storeEntry } from "../support/store_records.ts";

const DAY_BEFORE = new Date("2024-05-01T00:00:00.000Z");

/** What status reads of `feeds` in the database in `dbDir`. */
const readFeedRecords = (dbDir: string, feeds: string[], since: Date) =>
  readAt({ kind: "file", dbDir }, feeds, since);

const entry = (id: string) => storeEntry(id);

function run(feed: string, start: string, more: Partial<RunRecord> = {}): RunRecord {
  const startedAt = new Date(start);
  const finishedAt = new Date(startedAt.getTime() + 1000);
  return runRecord(feed, { startedAt, finishedAt, fetched: 3, ...more });
}

/** A database written through the real Store: two feeds with runs and sent entries. */
async function writtenState(dir: string): Promise<void> {
  const store = (await Store.open(dir))!;
  try {
    await store.recordFirstSighting("news", [entry("old")], new Date("2024-04-01T00:00:00Z"));
    await store.markSent("news", entry("a"), "@c", 1, new Date("2024-04-30T23:59:59.999Z"));
    await store.markSent("news", entry("b"), "@c", 2, new Date("2024-05-01T00:00:00.000Z"));
    await store.markSent("news", entry("c"), "@c", 3, new Date("2024-05-01T10:00:00.000Z"));
    await store.finishRun(run("news", "2024-05-01T10:00:00Z", { new: 1, sent: 1 }));
    // Three no-op runs: written as one row standing for them (schema 3's run_count).
    await store.finishRun(run("news", "2024-05-01T10:05:00Z"));
    await store.flush();
    await store.finishRun(run("news", "2024-05-01T10:10:00Z"));
    await store.flush();
    await store.finishRun(run("news", "2024-05-01T10:15:00Z"));
    await store.flush();
    await store.finishRun(run("bad", "2024-05-01T09:00:00Z"));
    await store.flush();
    await store.finishRun(
      run("bad", "2024-05-01T10:00:00Z", { outcome: "failed", error: "HTTP 500 from x" }),
    );
  } finally {
    store.close();
  }
}

Deno.test("status: no database yet is null, and nothing is created", async () => {
  const dir = await Deno.makeTempDir();
  assert.equal(await readFeedRecords(`${dir}/feed_data`, ["news"], DAY_BEFORE), null);
  await assert.rejects(Deno.stat(`${dir}/feed_data`), Deno.errors.NotFound);
});

Deno.test("status: latest run (a coalesced row counts its runs), sent in total and since", async () => {
  const dir = await Deno.makeTempDir();
  await writtenState(dir);
  const records = (await readFeedRecords(dir, ["news", "bad", "fresh"], DAY_BEFORE))!;
  assert.deepEqual([...records.keys()], ["news", "bad", "fresh"]);
  assert.deepEqual(records.get("news"), {
    lastRun: {
      startedAt: new Date("2024-05-01T10:05:00Z"),
      finishedAt: new Date("2024-05-01T10:15:01Z"),
      outcome: "ok",
      error: null,
      runCount: 3,
    },
    // "old" was skipped by the first sighting; "a" was sent a millisecond before `since`.
    sentTotal: 3,
    sentSince: 2,
    refusedTotal: 0,
    refused: [],
    filteredTotal: 0,
  });
  assert.deepEqual(records.get("bad"), {
    lastRun: {
      startedAt: new Date("2024-05-01T10:00:00Z"),
      finishedAt: new Date("2024-05-01T10:00:01Z"),
      outcome: "failed",
      error: "HTTP 500 from x",
      runCount: 1,
    },
    sentTotal: 0,
    sentSince: 0,
    refusedTotal: 0,
    refused: [],
    filteredTotal: 0,
  });
  assert.deepEqual(records.get("fresh"), {
    lastRun: null,
    sentTotal: 0,
    sentSince: 0,
    refusedTotal: 0,
    refused: [],
    filteredTotal: 0,
  });
});

Deno.test("status: reads beside a lock holder with a write transaction open; the writer goes on", async () => {
  const dir = await Deno.makeTempDir();
  await writtenState(`${dir}/feed_data`);
  const lock = await acquireLock(dir);
  const writer = (await Store.open(`${dir}/feed_data`))!;
  // Another connection in the middle of a write: it holds SQLite's write lock.
  const other = new Database(dbPath(`${dir}/feed_data`));
  try {
    other.exec("BEGIN IMMEDIATE");
    other.prepare(
      `INSERT INTO entries (feed, entry_id, title, status, seen_at, sent_at, chat_id, message_id)
       VALUES ('news', 'd', 'D', 'sent', ?, ?, '@c', 4)`,
    ).run("2024-05-01T11:00:00.000Z", "2024-05-01T11:00:00.000Z");
    const during = (await readFeedRecords(`${dir}/feed_data`, ["news"], DAY_BEFORE))!;
    assert.equal(during.get("news")!.sentTotal, 3, "an uncommitted write is not seen");
    other.exec("COMMIT");
    await writer.finishRun(run("news", "2024-05-01T11:00:00Z", { new: 1, sent: 1 }));
    const after = (await readFeedRecords(`${dir}/feed_data`, ["news"], DAY_BEFORE))!;
    assert.equal(after.get("news")!.sentTotal, 4);
    assert.equal(after.get("news")!.lastRun!.startedAt.toISOString(), "2024-05-01T11:00:00.000Z");
    // The lock is still this holder's, and the writer can go on writing.
    await assert.rejects(acquireLock(dir), /another courier process/);
    await writer.finishRun(run("bad", "2024-05-01T11:00:00Z", { new: 1, sent: 1 }));
  } finally {
    other.close();
    writer.close();
    lock.release();
  }
});

Deno.test("status: a newer schema is refused with exit code 2, naming the file", async () => {
  const dir = await Deno.makeTempDir();
  const db = new Database(dbPath(dir));
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  await assert.rejects(() => readFeedRecords(dir, ["news"], DAY_BEFORE), (e: Error) => {
    assert.ok(e instanceof StoreError);
    assert.equal(e.exitCode, 2);
    assert.equal(
      e.message,
      `database ${dbPath(dir)} has schema version ${SCHEMA_VERSION + 1}, newer than this ` +
        `courier understands (${SCHEMA_VERSION}); upgrade courier`,
    );
    return true;
  });
});

Deno.test("status: a version 1 database is read as it is, and stays version 1", async () => {
  const dir = await Deno.makeTempDir();
  const db = new Database(dbPath(dir));
  db.exec([...MIGRATIONS[0], "PRAGMA user_version = 1"].join(";\n"));
  db.exec(`INSERT INTO runs (feed, started_at, finished_at, outcome, fetched, new, sent, failed,
             skipped, error)
           VALUES ('news', '2024-05-01T10:00:00.000Z', '2024-05-01T10:00:02.000Z', 'failed',
             0, 0, 0, 0, 0, 'timed out')`);
  db.exec(`INSERT INTO entries (feed, entry_id, title, status, seen_at, sent_at)
           VALUES ('news', 'a', 'A', 'sent', '2024-05-01T09:00:00.000Z',
             '2024-05-01T09:00:00.000Z')`);
  db.close();
  const records = (await readFeedRecords(dir, ["news"], DAY_BEFORE))!;
  assert.deepEqual(records.get("news"), {
    lastRun: {
      startedAt: new Date("2024-05-01T10:00:00Z"),
      finishedAt: new Date("2024-05-01T10:00:02Z"),
      outcome: "failed",
      error: "timed out",
      runCount: 1,
    },
    sentTotal: 1,
    sentSince: 1,
    refusedTotal: 0,
    refused: [],
    filteredTotal: 0,
  });
  const check = new Database(dbPath(dir));
  assert.deepEqual(check.prepare("PRAGMA user_version").raw().get(), [1]);
  check.close();
});

Deno.test("status: an empty file (no tables yet) is a database where nothing ran", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeFile(dbPath(dir), new Uint8Array());
  const records = (await readFeedRecords(dir, ["news"], DAY_BEFORE))!;
  assert.deepEqual(records.get("news"), {
    lastRun: null,
    sentTotal: 0,
    sentSince: 0,
    refusedTotal: 0,
    refused: [],
    filteredTotal: 0,
  });
});

Deno.test("status: an older table it cannot read, or a file that is no database, is one line", async () => {
  const dir = await Deno.makeTempDir();
  const db = new Database(dbPath(dir));
  db.exec("CREATE TABLE runs (feed TEXT, started_at TEXT)");
  db.close();
  await assert.rejects(() => readFeedRecords(dir, ["news"], DAY_BEFORE), (e: Error) => {
    assert.ok(e instanceof StoreError);
    assert.equal(e.exitCode, 1);
    assert.match(
      e.message,
      /schema version 0\) lacks runs\.finished_at, runs\.outcome, runs\.error;/,
    );
    assert.ok(!e.message.includes("\n"));
    return true;
  });

  const junk = await Deno.makeTempDir();
  await Deno.writeTextFile(dbPath(junk), "this is not a database, just text ".repeat(200));
  await assert.rejects(() => readFeedRecords(junk, ["news"], DAY_BEFORE), (e: Error) => {
    assert.ok(e instanceof StoreError);
    assert.equal(e.exitCode, 1);
    assert.match(e.message, new RegExp(`^cannot (open|read) database ${dbPath(junk)}: .+`));
    assert.ok(!e.message.includes("\n"));
    return true;
  });
});

Deno.test("status: refused entries per feed, counted apart from sent, the latest first", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = (await Store.open(dir))!;
    try {
      await store.markSent("news", entry("a"), "@c", 1, new Date("2024-05-01T10:00:00Z"));
      for (let i = 1; i <= 7; i++) {
        const e = { ...entry(`r${i}`), title: `Refused ${i}`, link: `https://example.org/r${i}` };
        await store.markRefused("news", e, "@c", new Date(`2024-05-0${i}T08:00:00Z`));
      }
      // A refusal never overwrites a sent entry.
      await store.markRefused("news", entry("a"), "@c", new Date("2024-05-09T00:00:00Z"));
      await store.markRefused("other", { ...entry("x"), link: null }, "@o", DAY_BEFORE);
    } finally {
      store.close();
    }
    const records = (await readFeedRecords(dir, ["news", "other"], DAY_BEFORE))!;
    const news = records.get("news")!;
    assert.equal(news.sentTotal, 1);
    assert.equal(news.refusedTotal, 7);
    assert.deepEqual(news.refused.map((e) => e.id), ["r7", "r6", "r5", "r4", "r3"]);
    assert.deepEqual(news.refused[0], {
      id: "r7",
      title: "Refused 7",
      link: "https://example.org/r7",
      at: new Date("2024-05-07T08:00:00Z"),
    });
    const other = records.get("other")!;
    assert.equal(other.refusedTotal, 1);
    assert.equal(other.refused[0].link, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
