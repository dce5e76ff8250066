import assert from "node:assert/strict";
import { openLocal } from "../../src/browse/sql/db.ts";
import { openLocalNode } from "../../src/browse/sql/db_node.ts";
import { Executor } from "../../src/browse/sql/executor.ts";
import type { WorkerRequest } from "../../src/browse/pool/protocol.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";

/** Runs one query on an executor in this process; returns its status and parsed body. */
async function answer(executor: Executor, sql: string, params?: unknown, maxRows = 100) {
  let text = "";
  let status = 0;
  const req: WorkerRequest = { op: "query", sql, params, format: "json", maxRows };
  await executor.handle(req, {
    head: (h) => (status = h.status),
    chunk: (t) => (text += typeof t === "string" ? t : new TextDecoder().decode(t)),
    end: () => {},
  });
  return { status, body: JSON.parse(text) };
}

/** Runs one query on an executor in this process; returns its parsed body. */
async function ask(executor: Executor, sql: string, params?: unknown, maxRows = 100) {
  return (await answer(executor, sql, params, maxRows)).body;
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

Deno.test("executor: a kept program's verdict is kept per rule, so a listed write is still refused when run", async () => {
  const db = openLocalNode(await makeFixtureDb());
  const executor = new Executor(db, false, "fixture.db");
  await executor.init();
  const insert = "INSERT INTO kv VALUES ('z', '26')";
  try {
    // Both orders: the statement's program is listed once and kept, and each request is
    // checked by its own rule (listing a write is allowed, running it is not).
    for (const order of [["explain", "run"], ["run", "explain"]]) {
      for (let i = 0; i < 3; i++) {
        for (const step of order) {
          const sql = step === "explain" ? `EXPLAIN ${insert}` : insert;
          const { status, body } = await answer(executor, sql);
          if (step === "explain") assert.equal(status, 200, JSON.stringify(body));
          else {
            assert.equal(status, 403);
            assert.match(body.error, /^read-only/);
          }
        }
      }
      // A refused function stays refused however often it is asked.
      for (let i = 0; i < 3; i++) {
        assert.equal((await answer(executor, "SELECT load_extension('x')")).status, 403);
      }
    }
    assert.deepEqual((await ask(executor, "SELECT count(*) FROM kv WHERE k = 'z'")).rows, [[0]]);
  } finally {
    db.close();
  }
});
