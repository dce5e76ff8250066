import assert from "node:assert/strict";
import { type Db, openLocal } from "../../src/browse/sql/db.ts";
import { Executor } from "../../src/browse/sql/executor.ts";
import type { WorkerRequest } from "../../src/browse/pool/protocol.ts";
import { compilesQueryOnly } from "../../src/browse/sql/sql_text.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";

Deno.test("compilesQueryOnly: only text that starts a query, past comments and EXPLAIN", () => {
  for (
    const sql of [
      "SELECT 1",
      " -- x\n/* y */ select 1",
      "WITH a AS (SELECT 1) SELECT *",
      "VALUES (1)",
      "EXPLAIN SELECT 1",
      "explain query plan /**/ with x as (select 1) select 1",
    ]
  ) {
    assert.equal(compilesQueryOnly(sql), true, sql);
  }
  for (
    const sql of [
      "PRAGMA cache_size = 1",
      "/**/PRAGMA x",
      "EXPLAIN PRAGMA x=1",
      "EXPLAIN QUERY PLAN PRAGMA x=1",
      "explain query pragma",
      "/* open",
      "INSERT INTO t VALUES (1)",
      "(SELECT 1)",
      "",
      "SELECTx",
    ]
  ) {
    assert.equal(compilesQueryOnly(sql), false, sql);
  }
});

/** The executor on `db`, counting how often it reads the connection's settings. */
async function counted(db: Db) {
  const seen = { reads: 0 };
  const watched: Db = {
    ...db,
    often(sql) {
      if (sql.includes("pragma_cache_size")) seen.reads++;
      return db.often(sql);
    },
  };
  const executor = new Executor(watched, false, "fixture.db");
  await executor.init();
  const ask = async (sql: string) => {
    let text = "";
    const req: WorkerRequest = { op: "query", sql, format: "json", maxRows: 100 };
    await executor.handle(req, {
      head: () => {},
      chunk: (t) => (text += typeof t === "string" ? t : new TextDecoder().decode(t)),
      end: () => {},
    });
    return JSON.parse(text);
  };
  return { seen, ask, executor };
}

Deno.test("executor: settings are read after a request that could change them, and only then", async () => {
  const db = openLocal(await makeFixtureDb(), false);
  try {
    const { seen, ask, executor } = await counted(db);
    assert.equal(seen.reads, 1, "the baseline");
    // The first request reads the schema (for unlistable objects) with an internal query.
    await ask("SELECT id FROM items");
    assert.equal(seen.reads, 2);
    for (let i = 0; i < 3; i++) await ask("SELECT id, name FROM items WHERE id = 1");
    assert.equal(seen.reads, 2, "a plain query cannot change a setting");
    // A table-valued function runs code of its own: checked after it.
    await ask("SELECT * FROM json_each('[1, 2]')");
    assert.equal(seen.reads, 3);
    await ask("/* read */ PRAGMA cache_size");
    assert.equal(seen.reads, 4, "a PRAGMA, even a read");
    // Changed on the connection outside any request: the next plain query has it put back.
    await db.all("PRAGMA cache_size = 7");
    await ask("SELECT 1");
    assert.equal(seen.reads, 6, "read, put back, read again");
    assert.deepEqual((await ask("PRAGMA cache_size")).rows, [[-2000]]);
    assert.equal(executor.spoiled, false);
    await ask("SELECT 2");
    assert.equal(seen.reads, 7, "only the PRAGMA's own check");
  } finally {
    db.close();
  }
});
