/**
 * The statements a worker keeps prepared are bounded by size, not only by count: 64 kept
 * programs of long queries filled the worker's SQLite heap (after 192 distinct
 * 100,000-character queries another client's query failed "out of memory").
 */
import assert from "node:assert/strict";
import { KeptStatements } from "../../src/browse/sql/kept.ts";
import { openLocal, type Ready, READY_KEPT, READY_TEXT_MAX } from "../../src/browse/sql/local.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";

/** A query of `chars` characters, distinct by `n`, cheap to run. */
const query = (n: number, chars: number) => {
  const head = `SELECT ${n} AS n, '`;
  return head + "x".repeat(chars - head.length - 2) + "'";
};

async function read(db: ReturnType<typeof openLocal>, sql: string): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  await db.run(sql, undefined, { write: false, limit: 10 }, () => {}, (r) => {
    rows.push([...r]);
    return true;
  });
  return rows;
}

Deno.test("kept statements: none of 192 distinct 100,000-character queries is kept; short ones are, 64 at most", async () => {
  const kept = new KeptStatements<Ready>(READY_KEPT, READY_TEXT_MAX);
  const db = openLocal(await makeFixtureDb(), false, kept);
  try {
    for (let n = 0; n < 192; n++) {
      const rows = await read(db, query(n, 100_000));
      assert.equal(rows[0][0], n);
    }
    assert.equal(kept.count, 0, "a long query is not kept prepared");
    assert.equal(kept.size, 0);
    // Short queries are kept (so the accounting is the engine's), the oldest going past 64.
    for (let n = 0; n < 100; n++) await read(db, query(n, 200));
    assert.equal(kept.count, READY_KEPT);
    assert.ok(kept.size <= READY_KEPT * READY_TEXT_MAX, `${kept.size}`);
    // A query's wrapper counts too: one just under the bound by its own text is not kept.
    const before = kept.size;
    await read(db, query(1000, READY_TEXT_MAX - 64));
    assert.equal(kept.size, before);
    assert.deepEqual(await read(db, "SELECT 1"), [[1]]);
  } finally {
    db.close();
  }
});

Deno.test("kept statements: past the size bound nothing is kept; the oldest goes past the count; a taken one is out until kept again", () => {
  const kept = new KeptStatements<string>(3, 100);
  assert.equal(kept.keep("big", "b", 101), false);
  assert.equal(kept.take("big"), undefined);
  for (const k of ["a", "b", "c", "d"]) assert.ok(kept.keep(k, k.toUpperCase(), 100));
  assert.equal(kept.count, 3);
  assert.equal(kept.size, 300);
  assert.equal(kept.take("a"), undefined, "the oldest went");
  assert.equal(kept.take("b"), "B");
  assert.equal(kept.take("b"), undefined);
  assert.equal(kept.size, 200);
  // Kept again under the same key: counted once.
  kept.keep("c", "C2", 10);
  assert.equal(kept.size, 110);
  assert.equal(kept.take("c"), "C2");
});
