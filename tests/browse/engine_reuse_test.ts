import assert from "node:assert/strict";
import { openLocal } from "../../src/browse/db.ts";
import { Executor } from "../../src/browse/executor.ts";
import type { WorkerRequest } from "../../src/browse/protocol.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";

/** Runs one query on an executor in this process; returns its parsed body. */
async function ask(executor: Executor, sql: string, params?: unknown, maxRows = 100) {
  let text = "";
  const req: WorkerRequest = { op: "query", sql, params, format: "json", maxRows };
  await executor.handle(req, {
    head: () => {},
    chunk: (t) => (text += typeof t === "string" ? t : new TextDecoder().decode(t)),
    end: () => {},
  });
  return JSON.parse(text);
}

Deno.test("executor: a query run again after another connection changed its table sees the change", async () => {
  const path = await makeFixtureDb();
  const db = openLocal(path, false);
  const writer = openLocal(path, true);
  const executor = new Executor(db, false, "fixture.db");
  await executor.init();
  try {
    for (let i = 0; i < 2; i++) {
      const r = await ask(executor, "SELECT * FROM kv ORDER BY k");
      assert.deepEqual(r.columns, ["k", "v"]);
      assert.deepEqual(r.rows, [["a", "1"], ["b", "2"]]);
    }
    await writer.all("ALTER TABLE kv ADD COLUMN w TEXT DEFAULT 'new'");
    await writer.all("INSERT INTO kv VALUES ('c', '3', 'x')");
    const r = await ask(executor, "SELECT * FROM kv ORDER BY k");
    assert.deepEqual(r.columns, ["k", "v", "w"]);
    assert.deepEqual(r.rows, [["a", "1", "new"], ["b", "2", "new"], ["c", "3", "x"]]);
  } finally {
    db.close();
    writer.close();
  }
});

Deno.test("executor: a query run again answers whole after a truncated run, and binds afresh", async () => {
  const db = openLocal(await makeFixtureDb(), false);
  const executor = new Executor(db, false, "fixture.db");
  await executor.init();
  try {
    const sql = "SELECT id FROM items ORDER BY id";
    assert.equal((await ask(executor, sql, undefined, 2)).truncated, true);
    for (let i = 0; i < 2; i++) {
      const r = await ask(executor, sql);
      assert.deepEqual(r.rows, [[1], [2], [3]]);
      assert.equal(r.truncated, false);
    }
    // A parameter bound by one run is never seen by a later run that binds none.
    assert.deepEqual((await ask(executor, "SELECT ?1 AS v", [5])).rows, [[5]]);
    assert.deepEqual((await ask(executor, "SELECT ?1 AS v")).rows, [[null]]);
    assert.deepEqual((await ask(executor, "SELECT ?1 AS v")).rows, [[null]]);
    assert.deepEqual((await ask(executor, "SELECT ?1 AS v", [6])).rows, [[6]]);
  } finally {
    db.close();
  }
});
