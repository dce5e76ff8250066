import assert from "node:assert/strict";
import { type RunRecord, Store } from "../../src/store/db.ts";
import { StoreError } from "../../src/store/failure.ts";
import { dbPath } from "../../src/store/location.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { createClient } from "npm:@libsql/client@^0.18.0";
import { ManualClock } from "../support/manual_clock.ts";
import { runRecord, storeEntry } from "../support/store_records.ts";

const entry = (id: string) => storeEntry(id, new Date("2024-01-01T00:00:00Z"));

async function openTemp(): Promise<{ store: Store; dir: string }> {
  const dir = await Deno.makeTempDir();
  const store = await Store.open(`${dir}/db/nested`);
  assert.ok(store);
  return { store, dir };
}

Deno.test("open creates the directory and migrates to the current schema version", async () => {
  const { store, dir } = await openTemp();
  try {
    assert.equal(await store.version(), SCHEMA_VERSION);
    assert.equal(store.path, `${dir}/db/nested/courier.db`);
    const tables = (await store.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    )).map((r) => r[0]);
    assert.deepEqual(tables, [
      "chat_migrations",
      "entries",
      "feeds",
      "last_success",
      "lease_holders",
      "leases",
      "meta",
      "runs",
      "validators",
    ]);
  } finally {
    store.close();
  }
  // Reopening is a no-op migration.
  const again = await Store.open(`${dir}/db/nested`);
  assert.equal(await again!.version(), SCHEMA_VERSION);
  again!.close();
});

Deno.test("released migrations are never edited: their SQL is what databases in the field ran", async () => {
  // Versions 1-7 as released. A change here is a new migration appended, never an edit.
  const released = JSON.stringify(MIGRATIONS.slice(0, 7));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(released));
  assert.equal(
    [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""),
    "2160edfbfac83eaea4c1acbae0ae92c242f48b188dd6e575e32b86598ce37767",
  );
});

Deno.test("a database newer than this build is refused with its path", async () => {
  const dir = await Deno.makeTempDir();
  const client = createClient({ url: `file:${dbPath(dir)}` });
  await client.execute(`PRAGMA user_version = ${SCHEMA_VERSION + 5}`);
  client.close();
  await assert.rejects(Store.open(dir), (e: Error) => {
    assert.ok(e instanceof StoreError);
    assert.match(e.message, /schema version \d+, newer/);
    assert.ok(e.message.includes(dbPath(dir)));
    return true;
  });
});

Deno.test("read-only open of a missing database creates nothing", async () => {
  const dir = await Deno.makeTempDir();
  assert.equal(await Store.open(`${dir}/db`, { readOnly: true }), null);
  await assert.rejects(Deno.stat(`${dir}/db`), Deno.errors.NotFound);
});

Deno.test("read-only open refuses writes", async () => {
  const { store, dir } = await openTemp();
  store.close();
  const ro = await Store.open(`${dir}/db/nested`, { readOnly: true });
  try {
    await assert.rejects(ro!.markSent("f", entry("a"), "@c", 1, new Date()));
    assert.equal((await ro!.lookup("f", [])).known, false);
  } finally {
    ro!.close();
  }
});

Deno.test("first sighting, seen ids and sent marks", async () => {
  const { store } = await openTemp();
  try {
    assert.equal((await store.lookup("news", [])).known, false);
    await store.recordFirstSighting("news", [entry("a"), entry("b")], new Date());
    assert.equal((await store.lookup("news", [])).known, true);
    assert.equal((await store.lookup("other", [])).known, false);
    await store.markSent("news", entry("c"), "@chan", 42, new Date());
    const { seen } = await store.lookup("news", ["a", "b", "c", "d"]);
    assert.deepEqual([...seen].sort(), ["a", "b", "c"]);
    // Entries are per feed.
    assert.equal((await store.lookup("other", ["a", "c"])).seen.size, 0);
    const rows = await store.query(
      "SELECT entry_id, status, chat_id, message_id FROM entries ORDER BY entry_id",
    );
    assert.deepEqual(rows, [
      ["a", "skipped", null, null],
      ["b", "skipped", null, null],
      ["c", "sent", "@chan", 42],
    ]);
  } finally {
    store.close();
  }
});

Deno.test("lookup handles more ids than one statement binds", async () => {
  const { store } = await openTemp();
  try {
    const many = Array.from({ length: 1200 }, (_, i) => entry(`e${i}`));
    await store.recordFirstSighting("big", many.filter((_, i) => i % 3 === 0), new Date());
    const { seen } = await store.lookup("big", many.map((e) => e.id));
    assert.equal(seen.size, 400);
    assert.ok(seen.has("e1197"));
  } finally {
    store.close();
  }
});

Deno.test("validators are stored per feed and replaced only by a finished ok run", async () => {
  const { store } = await openTemp();
  const run = runRecord("news", { fetched: 3, new: 1, sent: 1 });
  try {
    await store.finishRun(
      run,
      new Map([
        ["https://a/feed", { etag: '"x"', lastModified: null, bodyHash: null }],
        ["https://b/feed", { etag: null, lastModified: null, bodyHash: null }],
        ["https://c/feed", { etag: null, lastModified: null, bodyHash: "c0ffee" }],
      ]),
    );
    assert.deepEqual(
      await store.validators("news"),
      new Map([
        ["https://a/feed", { etag: '"x"', lastModified: null, bodyHash: null }],
        ["https://c/feed", { etag: null, lastModified: null, bodyHash: "c0ffee" }],
      ]),
    );
    assert.equal((await store.validators("other")).size, 0);
    await store.finishRun({ ...run, outcome: "failed", error: "boom" });
    assert.equal((await store.validators("news")).size, 2);
    const runs = await store.query("SELECT outcome, error FROM runs ORDER BY id");
    assert.deepEqual(runs, [["ok", null], ["failed", "boom"]]);
  } finally {
    store.close();
  }
});

Deno.test("chat migrations are remembered", async () => {
  const { store } = await openTemp();
  try {
    await store.recordChatMigration("-123", "-100123", new Date());
    await store.recordChatMigration("-123", "-100999", new Date());
    assert.deepEqual(await store.chatMigrations(), new Map([["-123", "-100999"]]));
  } finally {
    store.close();
  }
});

Deno.test("lookup answers known and seen in one go, with ids full of quotes", async () => {
  const { store } = await openTemp();
  try {
    const odd = `tag:x,2024:"quoted" 'single' \\ [brackets]`;
    assert.deepEqual(await store.lookup("f", [odd, "b"]), { known: false, seen: new Set() });
    await store.recordFirstSighting("f", [entry(odd)], new Date());
    await store.markSent("f", entry("c"), "@chan", 1, new Date());
    assert.deepEqual(await store.lookup("f", [odd, "b", "c"]), {
      known: true,
      seen: new Set([odd, "c"]),
    });
    assert.deepEqual(await store.lookup("f", []), { known: true, seen: new Set() });
  } finally {
    store.close();
  }
});

Deno.test("lookup without ids answers known from memory, current after a first sighting", async () => {
  const { store } = await openTemp();
  try {
    assert.deepEqual(await store.lookup("news", []), { known: false, seen: new Set() });
    await store.recordFirstSighting("news", [], new Date());
    assert.deepEqual(await store.lookup("news", []), { known: true, seen: new Set() });
    assert.equal((await store.lookup("other", [])).known, false);
  } finally {
    store.close();
  }
});

Deno.test("runs finished at the same time commit together; a bad one fails alone", async () => {
  const { store } = await openTemp();
  const run = (feed: string, outcome = "ok") =>
    runRecord(feed, { outcome: outcome as RunRecord["outcome"] });
  try {
    const v = (tag: string) =>
      new Map([[`https://${tag}/feed`, { etag: `"${tag}"`, lastModified: null, bodyHash: null }]]);
    const results = await Promise.allSettled([
      store.finishRun(run("a"), v("a")),
      store.finishRun({ ...run("b"), new: 1, sent: 1 }),
      store.finishRun(run("bad", "neither ok nor failed"), v("bad")),
      store.finishRun(run("c"), v("c")),
    ]);
    assert.deepEqual(results.map((r) => r.status), [
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    assert.deepEqual(await store.query("SELECT feed FROM runs ORDER BY id"), [["a"], ["b"], [
      "c",
    ]]);
    assert.deepEqual(await store.query("SELECT feed FROM validators ORDER BY feed"), [["a"], [
      "c",
    ]]);
    assert.equal((await store.validators("bad")).size, 0);
  } finally {
    store.close();
  }
});

Deno.test("no-op runs are held back until flush (or a full buffer); others are written at once", async () => {
  const { store } = await openTemp();
  const run = (feed: string, sent = 0) => runRecord(feed, { fetched: 3, new: sent, sent });
  const count = async () => Number((await store.query("SELECT count(*) FROM runs"))[0][0]);
  try {
    await store.finishRun(run("idle"));
    await store.finishRun({ ...run("broken"), outcome: "failed", error: "HTTP 500" });
    await store.finishRun(run("busy", 2));
    assert.deepEqual(await store.query("SELECT feed FROM runs ORDER BY id"), [["broken"], [
      "busy",
    ]]);
    await store.flush();
    assert.deepEqual(
      await store.query(
        "SELECT feed, started_at, finished_at, outcome, fetched, error FROM runs" +
          " WHERE feed = 'idle'",
      ),
      [["idle", "2024-05-01T12:00:00.000Z", "2024-05-01T12:00:01.000Z", "ok", 3, null]],
    );
    await store.flush(); // nothing buffered: writes nothing
    assert.equal(await count(), 3);
    for (let i = 0; i < 300; i++) await store.finishRun(run(`f${i}`));
    assert.ok(await count() >= 3 + 256, "a full buffer is written without waiting for flush");
    await store.flush();
    assert.equal(await count(), 303);
  } finally {
    store.close();
  }
});

Deno.test("consecutive no-op runs of a feed share one row; anything else starts a new one", async () => {
  const { store, dir } = await openTemp();
  let minute = 0;
  // Each run a minute after the one before.
  const run = (feed: string, more: Partial<RunRecord> = {}) => {
    minute++;
    return runRecord(feed, {
      startedAt: new Date(Date.UTC(2024, 4, 1, 12, minute, 0)),
      finishedAt: new Date(Date.UTC(2024, 4, 1, 12, minute, 1)),
      ...more,
    });
  };
  const rows = () =>
    store.query(
      "SELECT feed, started_at, finished_at, run_count, outcome, fetched FROM runs ORDER BY id",
    );
  let reopened: Store | null = null;
  try {
    for (let i = 0; i < 3; i++) {
      await store.finishRun(run("a"));
      await store.finishRun(run("b"));
      await store.flush();
    }
    assert.deepEqual(await rows(), [
      ["a", "2024-05-01T12:01:00.000Z", "2024-05-01T12:05:01.000Z", 3, "ok", 0],
      ["b", "2024-05-01T12:02:00.000Z", "2024-05-01T12:06:01.000Z", 3, "ok", 0],
    ]);
    // A failure, then no-op runs again: a new row after the failure's.
    await store.finishRun(run("a", { outcome: "failed", error: "HTTP 500" }));
    await store.finishRun(run("a"));
    await store.flush();
    // A different count of entries is a different row too.
    await store.finishRun(run("b", { fetched: 4 }));
    await store.flush();
    assert.deepEqual((await rows()).slice(2), [
      ["a", "2024-05-01T12:07:00.000Z", "2024-05-01T12:07:01.000Z", 1, "failed", 0],
      ["a", "2024-05-01T12:08:00.000Z", "2024-05-01T12:08:01.000Z", 1, "ok", 0],
      ["b", "2024-05-01T12:09:00.000Z", "2024-05-01T12:09:01.000Z", 1, "ok", 4],
    ]);
    // A no-op run buffered when a run of the same feed that did something comes is written
    // first, so the rows stay in the order the runs happened.
    await store.finishRun(run("b", { fetched: 4 }));
    await store.finishRun(run("b", { new: 1, sent: 1, fetched: 4 }));
    await store.finishRun(run("b", { fetched: 4 }));
    await store.flush();
    assert.deepEqual(
      (await store.query("SELECT feed, run_count, sent FROM runs ORDER BY id")).slice(4),
      [["b", 2, 0], ["b", 1, 1], ["b", 1, 0]],
    );
    store.close();
    // A later process carries on with the rows the last one left.
    reopened = (await Store.open(`${dir}/db/nested`))!;
    await reopened.finishRun(run("a"));
    await reopened.finishRun(run("b", { fetched: 4 }));
    await reopened.flush();
    assert.deepEqual(
      await reopened.query("SELECT feed, run_count FROM runs ORDER BY id"),
      [["a", 3], ["b", 3], ["a", 1], ["a", 2], ["b", 2], ["b", 1], ["b", 2]],
    );
  } finally {
    (reopened ?? store).close();
  }
});

Deno.test("a version 2 database keeps its runs, each counted as one run", async () => {
  const dir = await Deno.makeTempDir();
  const client = createClient({ url: `file:${dbPath(dir)}` });
  for (const [v, statements] of MIGRATIONS.slice(0, 2).entries()) {
    await client.batch([...statements, `PRAGMA user_version = ${v + 1}`], "write");
  }
  await client.execute(
    `INSERT INTO runs (feed, started_at, finished_at, outcome, fetched, new, sent, failed, skipped)
     VALUES ('a', '2024-05-01T12:00:00.000Z', '2024-05-01T12:00:01.000Z', 'ok', 0, 0, 0, 0, 0)`,
  );
  client.close();
  const store = (await Store.open(dir))!;
  try {
    assert.equal(await store.version(), SCHEMA_VERSION);
    assert.deepEqual(await store.query("SELECT feed, run_count FROM runs"), [["a", 1]]);
    await store.finishRun(runRecord("a", {
      startedAt: new Date("2024-05-01T12:05:00Z"),
      finishedAt: new Date("2024-05-01T12:05:01Z"),
    }));
    await store.flush();
    assert.deepEqual(await store.query("SELECT feed, finished_at, run_count FROM runs"), [
      ["a", "2024-05-01T12:05:01.000Z", 2],
    ]);
  } finally {
    store.close();
  }
});

Deno.test("buffered no-op runs are written by a timer on the injected clock, without a flush", async () => {
  const dir = await Deno.makeTempDir();
  const clock = new ManualClock();
  const store = (await Store.open(dir, { clock }))!;
  const count = async () => Number((await store.query("SELECT count(*) FROM runs"))[0][0]);
  try {
    await store.finishRun(runRecord("idle"));
    await clock.advance(3000);
    await store.finishRun(runRecord("quiet"));
    assert.equal(await count(), 0);
    assert.equal(clock.pending, 1, "one timer for the whole buffer");
    await clock.advance(26_999);
    assert.equal(await count(), 0);
    await clock.advance(1);
    await store.whenWritten();
    assert.equal(await count(), 2, "written 30 s after the first buffered row");
    assert.equal(clock.pending, 0, "nothing buffered, no timer");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
