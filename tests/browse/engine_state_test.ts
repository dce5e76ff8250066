import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { makeFixtureDb, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";

/** A connection of another program: busy timeout 0, so a held lock fails at once. */
function outside(path: string): Database.Database {
  return new Database(path, { timeout: 0 });
}

function canWrite(db: Database.Database): true | string {
  try {
    db.exec("INSERT INTO x (y) VALUES (1)");
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

function bigTable(path: string, journal: "delete" | "wal"): void {
  const db = new Database(path);
  db.exec(`PRAGMA journal_mode = ${journal};
    CREATE TABLE many (n INTEGER);
    INSERT INTO many SELECT value FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 5000) SELECT value FROM s);`);
  db.close();
}

Deno.test("state: on a rollback-journal file an outside writer is never blocked by an idle browse", async () => {
  const path = await makeFixtureDb();
  bigTable(path, "delete");
  const b = await startTestBrowser(path, { workers: 1, maxRows: 10 });
  const other = outside(path);
  try {
    for (
      const sql of [
        "SELECT count(*) FROM items",
        "SELECT * FROM many", // stopped at the row cap
        "EXPLAIN SELECT * FROM many",
        "EXPLAIN QUERY PLAN SELECT * FROM many",
        "PRAGMA table_info(many)",
        "PRAGMA integrity_check",
      ]
    ) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 200, `${sql}: ${r.text}`);
      assert.equal(canWrite(other), true, `after ${sql}`);
    }
    const capped = await postQuery(b, "SELECT * FROM many");
    assert.equal((capped.body as { truncated: boolean }).truncated, true);
    assert.equal(canWrite(other), true, "after a truncated query");
    const csv = await fetch(new URL("/api/query?format=csv&query=SELECT+*+FROM+many", b.url));
    await csv.body!.cancel();
    const after = await postQuery(b, "SELECT count(*) FROM x");
    assert.equal(after.status, 200);
    assert.equal(canWrite(other), true, "after a cancelled download");
  } finally {
    other.close();
    await b.close();
  }
});

Deno.test("state: over WAL, a commit by an outside writer is seen by the next query", async () => {
  const path = await makeFixtureDb();
  bigTable(path, "wal");
  const b = await startTestBrowser(path, { workers: 1, maxRows: 10 });
  const other = outside(path);
  try {
    const count = async () =>
      ((await postQuery(b, "SELECT count(*) FROM x")).body as { rows: number[][] }).rows[0][0];
    assert.equal(await count(), 0);
    await postQuery(b, "SELECT * FROM many"); // truncated: must not pin a snapshot
    await postQuery(b, "EXPLAIN SELECT * FROM many");
    assert.equal(canWrite(other), true);
    assert.equal(await count(), 1, "the commit is visible");
    assert.equal(canWrite(other), true);
    assert.equal(await count(), 2);
  } finally {
    other.close();
    await b.close();
  }
});

Deno.test("state: --write commits each request; the row survives the server; transactions refused", async () => {
  const path = await makeFixtureDb();
  const b = await startTestBrowser(path, { write: true, workers: 1, maxRows: 10 });
  const reader = outside(path);
  try {
    const ins = await postQuery(b, "INSERT INTO items (name) VALUES ('committed')");
    assert.equal(ins.status, 200, ins.text);
    const seen = reader.prepare("SELECT count(*) FROM items WHERE name = 'committed'").raw().get();
    assert.deepEqual(seen, [1], "an outside reader sees it at once");
    assert.equal(canWrite(reader), true, "no write lock is held");
    const ret = await postQuery(
      b,
      "INSERT INTO x (y) SELECT value FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 50) SELECT value FROM s) RETURNING y",
    );
    assert.equal(ret.status, 200, ret.text);
    assert.equal((ret.body as { truncated: boolean }).truncated, true);
    assert.equal(canWrite(reader), true, "the truncated RETURNING insert ended");
    for (
      const sql of [
        "BEGIN",
        "BEGIN IMMEDIATE",
        "SAVEPOINT s",
        "RELEASE s",
        "COMMIT",
        "END",
        "ROLLBACK",
        "/* x */ begin exclusive",
      ]
    ) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 403, `${sql}: ${r.text}`);
    }
  } finally {
    await b.close();
  }
  const after = reader.prepare("SELECT count(*) FROM items WHERE name = 'committed'").raw().get();
  assert.deepEqual(after, [1], "the row survives stopping the server");
  const returned = reader.prepare("SELECT count(*) FROM x").raw().get() as number[];
  // 50 from the RETURNING insert, 2 from canWrite.
  assert.deepEqual(returned, [52], "a RETURNING insert past the row cap commits every row");
  reader.close();
});
