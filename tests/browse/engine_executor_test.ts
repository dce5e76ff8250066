import assert from "node:assert/strict";
import { openLocal } from "../../src/browse/sql/db.ts";
import { Executor } from "../../src/browse/sql/executor.ts";
import type { WorkerRequest } from "../../src/browse/pool/protocol.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";

/** Runs one request on an executor in this process; returns its status and parsed body. */
async function ask(executor: Executor, req: WorkerRequest) {
  let status = 0;
  let text = "";
  await executor.handle(req, {
    head: (h) => (status = h.status),
    chunk: (t) => (text += typeof t === "string" ? t : new TextDecoder().decode(t)),
    end: () => {},
  });
  return { status, body: JSON.parse(text) };
}

const query = (sql: string, params?: unknown): WorkerRequest => ({
  op: "query",
  sql,
  params,
  format: "json",
  maxRows: 100,
});

Deno.test('executor: {"$int"} params bind as exact 64-bit integers', async () => {
  const db = openLocal(await makeFixtureDb(), false);
  const executor = new Executor(db, false, "fixture.db");
  await executor.init();
  try {
    const r = await ask(
      executor,
      query("SELECT ?1 + 0, typeof(?1), (SELECT name FROM items WHERE qty = ?1)", [
        { $int: "9007199254740993" },
      ]),
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.rows, [["9007199254740993", "integer", "apple"]]);
    const named = await ask(executor, query("SELECT :n", { n: { $int: "-9223372036854775808" } }));
    assert.deepEqual(named.body.rows, [["-9223372036854775808"]]);
    // Named params for a `?` without a name: the driver would abort the worker.
    const nameless = await ask(executor, query("SELECT ?, :x", { x: 1 }));
    assert.equal(nameless.status, 400);
    assert.match(nameless.body.error, /JSON array/);
    const out = await ask(executor, query("SELECT ?1", [{ $int: "9223372036854775808" }]));
    assert.equal(out.status, 400);
    assert.match(out.body.error, /64-bit/);
  } finally {
    db.close();
  }
});

Deno.test("executor: a setting changed behind the checks is put back before the next request", async () => {
  const db = openLocal(await makeFixtureDb(), false);
  const executor = new Executor(db, false, "fixture.db");
  await executor.init();
  try {
    // As if a PRAGMA had slipped through: set on the connection directly.
    await db.all("PRAGMA cache_size = 7");
    await db.all("PRAGMA foreign_keys = OFF");
    await ask(executor, query("SELECT 1"));
    assert.equal(executor.spoiled, false);
    const cache = await ask(executor, query("PRAGMA cache_size"));
    assert.deepEqual(cache.body.rows, [[-2000]]);
    const fk = await ask(executor, query("PRAGMA foreign_keys"));
    assert.deepEqual(fk.body.rows, [[1]]);
    // The heap limit can be lowered in SQL but never raised back: the worker must be replaced.
    await db.all("PRAGMA hard_heap_limit = 200000000");
    await ask(executor, query("SELECT 1"));
    assert.equal(executor.spoiled, true);
  } finally {
    db.close();
  }
});

Deno.test("executor: a kept program check is redone when another connection changes the schema", async () => {
  const path = await makeFixtureDb();
  const writer = openLocal(path, true);
  await writer.all("CREATE VIEW v AS SELECT 1 AS one");
  const db = openLocal(path, false);
  const executor = new Executor(db, false, "fixture.db");
  await executor.init();
  try {
    // Twice: the second run is answered from the kept listing.
    for (let i = 0; i < 2; i++) {
      const r = await ask(executor, query("SELECT * FROM v"));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.rows, [[1]]);
    }
    // The same text now reaches a refused function through the view: listed anew and refused.
    await writer.all("DROP VIEW v");
    // fts5_source_id() is harmless to SQLite (allowed in a view) but not on the allow-list.
    await writer.all("CREATE VIEW v AS SELECT fts5_source_id() AS one");
    const r = await ask(executor, query("SELECT * FROM v"));
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.match(r.body.error, /fts5_source_id/);
  } finally {
    db.close();
    writer.close();
  }
});
