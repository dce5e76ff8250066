import assert from "node:assert/strict";
import { createClient } from "npm:@libsql/client@^0.18.0";
import { runRecord, storeEntry } from "../support/store_records.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { type RunRecord, Store } from "../../src/store/db.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const day = (n: number) => new Date(T0 + n * DAY);

const entry = (id: string) => storeEntry(id);
const run = (feed: string, at: Date, extra: Partial<RunRecord> = {}) =>
  runRecord(feed, { startedAt: at, finishedAt: at, ...extra });

const validators = (hash: string) =>
  new Map([["https://feeds.example/f.xml", { etag: null, lastModified: null, bodyHash: hash }]]);

async function withStore(fn: (store: Store, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const store = (await Store.open(dir))!;
  try {
    await fn(store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A successful run at `at` that parsed the feed holding `ids`, sending those not yet sent. */
async function parsedRun(store: Store, feed: string, ids: string[], at: Date) {
  if (!(await store.lookup(feed, [])).known) await store.recordFirstSighting(feed, [], at);
  const { seen } = await store.lookup(feed, ids);
  const fresh = ids.filter((id) => !seen.has(id));
  for (const [i, id] of fresh.entries()) await store.markSent(feed, entry(id), "@c", i + 1, at);
  await store.finishRun(
    run(feed, at, { fetched: ids.length, new: fresh.length, sent: fresh.length }),
    validators(`xxh64:${at.getTime()}`),
    ids,
  );
}

const ids = async (store: Store, feed: string) =>
  (await store.query("SELECT entry_id FROM entries WHERE feed = ? ORDER BY entry_id", [feed]))
    .map((r) => String(r[0]));

Deno.test("an entry the feed still lists is kept however long 304s hide it; one it dropped goes after 90 days", async () => {
  await withStore(async (store) => {
    await parsedRun(store, "f", ["a", "b", "c", "d", "e"], day(0));
    await parsedRun(store, "f", ["c", "d", "e", "f"], day(1));
    // 200 days of 304s: nothing is written, c-f are still what the feed lists.
    const counts = await store.prune(day(200), { keepEntries: 1, configured: ["f"] });
    assert.equal(counts.entries, 2);
    assert.deepEqual(await ids(store, "f"), ["c", "d", "e", "f"]);
    assert.deepEqual([...(await store.lookup("f", ["c", "d", "e", "f"])).seen].sort(), [
      "c",
      "d",
      "e",
      "f",
    ]);
  });
});

Deno.test("an entry gone from the feed is kept for 90 days after it was last seen", async () => {
  await withStore(async (store) => {
    await parsedRun(store, "f", ["a", "b"], day(0));
    await parsedRun(store, "f", ["b"], day(10));
    // a was last seen on day 0: kept through day 90, gone after.
    assert.equal((await store.prune(day(89), { keepEntries: 1 })).entries, 0);
    assert.equal((await store.prune(day(90), { keepEntries: 1 })).entries, 0);
    assert.equal((await store.prune(day(91), { keepEntries: 1 })).entries, 1);
    assert.deepEqual(await ids(store, "f"), ["b"]);
  });
});

Deno.test("the most recently seen keepEntries of a feed stay even when gone for long", async () => {
  await withStore(async (store) => {
    for (let i = 0; i < 6; i++) await parsedRun(store, "f", [`e${i}`], day(i));
    // The feed now lists e5 alone; e0-e4 were last seen on days 0-4.
    const counts = await store.prune(day(400), { keepEntries: 3 });
    assert.equal(counts.entries, 3);
    assert.deepEqual(await ids(store, "f"), ["e3", "e4", "e5"]);
  });
});

Deno.test("a run that parsed but failed keeps the entries it saw, without moving the feed's parsed read", async () => {
  await withStore(async (store) => {
    await parsedRun(store, "f", ["a", "b"], day(0));
    // Day 50: the feed lists only a; delivery failed, so validators and last_parsed_at stay.
    await store.finishRun(
      run("f", day(50), { outcome: "failed", error: "x", fetched: 1 }),
      undefined,
      [
        "a",
      ],
    );
    const [[parsed]] = await store.query("SELECT last_parsed_at FROM feeds WHERE name = 'f'");
    assert.equal(parsed, day(0).toISOString());
    // Both are in the last successful parsed read (day 0): neither goes, whatever the age.
    assert.equal((await store.prune(day(300), { keepEntries: 1 })).entries, 0);
    const seen = await store.query(
      "SELECT entry_id, last_seen_at FROM entries WHERE feed = 'f' ORDER BY entry_id",
    );
    assert.deepEqual(seen, [["a", day(50).toISOString()], ["b", day(0).toISOString()]]);
  });
});

Deno.test("runs: 90 days and at least the latest keepRuns per feed; a long no-op row is kept by its finish", async () => {
  await withStore(async (store) => {
    for (let i = 0; i < 150; i++) {
      await store.finishRun(run("f", day(i), { fetched: 1, new: 1, sent: 1 }));
    }
    const counts = await store.prune(day(150));
    // Cut-off day 60: rows 0-59 finished before it, and only rows 0-49 are outside the latest 100.
    assert.equal(counts.runs, 50);
    const count = async () => Number((await store.query("SELECT count(*) FROM runs"))[0][0]);
    assert.equal(await count(), 100);
    assert.equal((await store.prune(day(500))).runs, 0, "the latest 100 stay for good");
    assert.equal(await count(), 100);

    // g: a run that sent, then no-op runs from day 1 to day 199 in one row, then one more.
    await store.finishRun(run("g", day(0), { fetched: 1, new: 1, sent: 1 }));
    for (let i = 1; i < 200; i++) {
      await store.finishRun(run("g", day(i), { fetched: 1 }));
      await store.flush();
    }
    await store.finishRun(run("g", day(199.5), { fetched: 2, new: 1, sent: 1 }));
    // f's rows 50-109 (finished before day 110, no longer held by the floor) and g's first.
    assert.equal((await store.prune(day(200), { keepRuns: 1 })).runs, 60 + 1);
    const rows = await store.query(
      "SELECT started_at, finished_at, run_count FROM runs WHERE feed = 'g' ORDER BY started_at",
    );
    assert.deepEqual(rows, [
      [day(1).toISOString(), day(199).toISOString(), 199],
      [day(199.5).toISOString(), day(199.5).toISOString(), 1],
    ]);
  });
});

Deno.test("a feed removed from the config keeps its state for 90 days after its last run, then is dropped whole", async () => {
  await withStore(async (store) => {
    await parsedRun(store, "gone", ["a", "b"], day(0));
    await parsedRun(store, "kept", ["k"], day(0));
    for (const feed of ["gone", "kept"]) store.recordSuccess(feed, day(0));
    await store.flushSuccesses();
    const rules = { configured: ["kept"] };
    assert.deepEqual((await store.prune(day(90), rules)).droppedFeeds, []);
    assert.equal((await store.lookup("gone", [])).known, true);
    const counts = await store.prune(day(91), rules);
    assert.deepEqual(counts.droppedFeeds, ["gone"]);
    assert.equal(counts.entries, 2);
    assert.equal(counts.runs, 1);
    for (const table of ["entries", "runs", "validators", "last_success"]) {
      const [[n]] = await store.query(`SELECT count(*) FROM ${table} WHERE feed = 'gone'`);
      assert.equal(n, 0, table);
    }
    // Forgotten in memory too: added again, it is a new feed (its first sighting).
    assert.equal((await store.lookup("gone", [])).known, false);
    assert.equal((await store.lookup("gone", [])).known, false);
    assert.equal((await store.validators("gone")).size, 0);
    // The configured feed is untouched, and without `configured` no feed is dropped.
    assert.deepEqual(await ids(store, "kept"), ["k"]);
    assert.deepEqual([...(await store.lastSuccesses()).keys()], ["kept"]);
    assert.deepEqual((await store.prune(day(400))).droppedFeeds, []);
    assert.deepEqual(await ids(store, "kept"), ["k"]);
  });
});

Deno.test("prune deletes in batches of at most `batch` rows, each its own statement", async () => {
  await withStore(async (store) => {
    for (let i = 0; i < 8; i++) await parsedRun(store, "f", [`e${i}`], day(i));
    const counts = await store.prune(day(300), { keepEntries: 1, keepRuns: 8, batch: 2 });
    assert.equal(counts.entries, 7);
    // 2 + 2 + 2 + 1: four entry statements, then one for runs that finds none to delete.
    assert.equal(counts.batches, 5);
    assert.deepEqual(await ids(store, "f"), ["e7"]);
  });
});

Deno.test("pruneIfDue prunes at most once a day, and again after the clock stepped back", async () => {
  await withStore(async (store) => {
    assert.ok(await store.pruneIfDue(day(10)));
    assert.equal(await store.pruneIfDue(day(10.5)), null);
    assert.ok(await store.pruneIfDue(day(11)));
    assert.ok(await store.pruneIfDue(day(5)), "a time before the last prune: prune now");
  });
});

Deno.test("migration 4: entries of a version 3 database count as in their feed's last parsed read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const client = createClient({ url: `file:${dir}/courier.db` });
    for (let v = 0; v < 3; v++) {
      await client.batch([...MIGRATIONS[v], `PRAGMA user_version = ${v + 1}`], "write");
    }
    await client.batch([
      `INSERT INTO feeds (name, first_seen_at) VALUES ('f', '2020-01-01T00:00:00.000Z')`,
      ...["a", "b", "c"].map((id) =>
        `INSERT INTO entries (feed, entry_id, title, status, seen_at)
         VALUES ('f', '${id}', 't', 'skipped', '2020-01-01T00:00:00.000Z')`
      ),
    ], "write");
    client.close();
    const store = (await Store.open(dir))!;
    try {
      assert.equal(await store.version(), SCHEMA_VERSION);
      const [[parsed]] = await store.query("SELECT last_parsed_at FROM feeds");
      const seen = await store.query("SELECT DISTINCT last_seen_at FROM entries");
      assert.deepEqual(seen, [[parsed]]);
      // However old, they stay until a parsed read shows the feed no longer lists them.
      const later = new Date(Date.parse(String(parsed)) + 400 * DAY);
      assert.equal((await store.prune(later, { keepEntries: 1 })).entries, 0);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a truncate checkpoint leaves the -wal file empty and the whole state in courier.db", async () => {
  await withStore(async (store, dir) => {
    /** The entries a copy of courier.db alone (without the -wal file) holds. */
    const inDbFile = async () => {
      const copy = await Deno.makeTempDir();
      try {
        await Deno.copyFile(`${dir}/courier.db`, `${copy}/courier.db`);
        const alone = (await Store.open(copy, { readOnly: true }))!;
        const held = await ids(alone, "f");
        alone.close();
        return held;
      } finally {
        await Deno.remove(copy, { recursive: true });
      }
    };
    await parsedRun(store, "f", ["a", "b", "c"], day(0));
    assert.ok((await Deno.stat(`${dir}/courier.db-wal`)).size > 0, "the writes are in the WAL");
    // With no reader, a passive checkpoint copies the whole WAL.
    await store.checkpoint();
    assert.deepEqual(await inDbFile(), ["a", "b", "c"]);
    await store.checkpoint("truncate");
    assert.equal((await Deno.stat(`${dir}/courier.db-wal`)).size, 0);
    assert.deepEqual(await inDbFile(), ["a", "b", "c"]);
  });
});
