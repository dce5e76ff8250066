import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { DatabaseSync } from "node:sqlite";
import type { Db } from "../../src/browse/sql/db.ts";
import { openLocal } from "../../src/browse/sql/local.ts";
import { Executor } from "../../src/browse/sql/executor.ts";
import type { WorkerRequest } from "../../src/browse/pool/protocol.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";
import { random } from "../support/generated.ts";

/** A read of `sql` as a query request runs it, capped at `limit` (a stream without one). */
async function read(db: Db, sql: string, limit?: number, params?: unknown[]) {
  let columns: string[] = [];
  const rows: unknown[][] = [];
  await db.run(sql, params, { write: false, limit }, (c) => (columns = c), (r) => {
    if (limit !== undefined && rows.length >= limit) return false;
    rows.push([...r]);
    return true;
  });
  return { columns, rows };
}

/** The message of what `f` throws, or "" when it does not. */
async function failure(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}

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

type QueryRequest = Extract<WorkerRequest, { op: "query" | "explain" }>;

const query = (sql: string, params?: unknown, maxRows = 100): QueryRequest => ({
  op: "query",
  sql,
  params,
  format: "json",
  maxRows,
});

Deno.test("local: node:sqlite turns text that is not UTF-8 into U+FFFD as TextDecoder does", () => {
  // The reader relies on it: only text with a NUL byte is carried as bytes.
  const db = new DatabaseSync(":memory:");
  const decoder = new TextDecoder();
  const next = random(7);
  const pieces = ["ff", "c3", "c3a9", "e282", "e282ac", "eda080", "f09f98", "f09f9880", "80", "41"];
  try {
    for (let n = 0; n < 2000; n++) {
      let hex = "";
      for (let i = 1 + Math.floor(next() * 8); i > 0; i--) {
        hex += pieces[Math.floor(next() * pieces.length)];
      }
      const row = db.prepare(`SELECT CAST(x'${hex}' AS TEXT) AS t`).get() as { t: string };
      assert.equal(row.t, decoder.decode(Uint8Array.fromHex(hex)), hex);
    }
  } finally {
    db.close();
  }
});

Deno.test("local: reads end their statement, stopped early, failed or whole, in a page or a stream", async () => {
  for (const journal of ["delete", "wal"]) {
    const dir = await Deno.makeTempDir({ prefix: "browse_local_" });
    const path = `${dir}/t.db`;
    const setup = new Database(path);
    setup.exec(`PRAGMA journal_mode = ${journal};
      CREATE TABLE many (n INTEGER); CREATE TABLE x (y INTEGER);
      INSERT INTO many SELECT value FROM generate_series(1, 5000);`);
    setup.close();
    const db = openLocal(path, false);
    // Another program's connection: busy timeout 0, so a held lock fails at once.
    const other = new Database(path, { timeout: 0 });
    const count = async () => (await read(db, "SELECT count(*) FROM x", 10)).rows[0][0];
    const overflow =
      "SELECT CASE WHEN n > 100 THEN abs(-9223372036854775807 - 1) ELSE n END FROM many";
    try {
      assert.equal((await read(db, "SELECT * FROM many", 10)).rows.length, 10);
      assert.equal((await read(db, "SELECT * FROM many")).rows.length, 5000);
      assert.equal(db.inTransaction(), false);
      other.exec("INSERT INTO x VALUES (1)");
      assert.equal(await failure(() => read(db, overflow, 1000)), "integer overflow");
      // node:sqlite's iterate() ends quietly on an error: the stream still fails.
      assert.match(await failure(() => read(db, overflow)), /failed/);
      other.exec("INSERT INTO x VALUES (2)");
      // Values past a page's share are read one row at a time, whole.
      const big = await read(db, "SELECT zeroblob(200000) FROM many LIMIT 400", 1000);
      assert.equal(big.rows.length, 400);
      assert.equal((big.rows[399][0] as Uint8Array).length, 200000);
      // Past the value limit: SQLite's own error, not a process that grew without bound.
      assert.match(
        await failure(() => read(db, "SELECT zeroblob(100000000)", 10)),
        /too big/,
      );
      other.exec("INSERT INTO x VALUES (3)");
      // An integer beyond 2^53 makes the page be read again, as BigInts.
      const huge = await read(
        db,
        "SELECT CASE WHEN n = 4000 THEN 9007199254740993 ELSE n END FROM many",
        5000,
      );
      assert.equal(huge.rows[3999][0], 9007199254740993n);
      other.exec("INSERT INTO x VALUES (4)");
      // Over WAL each read sees the last commit: no snapshot was kept.
      assert.equal(await count(), 4);
    } finally {
      other.close();
      db.close();
    }
  }
});

Deno.test("local: a kept query binds afresh and follows the schema", async () => {
  const path = await makeFixtureDb();
  const db = openLocal(path, false);
  const writer = new Database(path);
  try {
    assert.deepEqual((await read(db, "SELECT ?1 AS v", 10, [5])).rows, [[5]]);
    for (let i = 0; i < 2; i++) {
      assert.deepEqual((await read(db, "SELECT ?1 AS v", 10)).rows, [[null]]);
    }
    for (let i = 0; i < 2; i++) {
      assert.deepEqual((await read(db, "SELECT * FROM kv ORDER BY k", 10)).columns, ["k", "v"]);
    }
    writer.exec("ALTER TABLE kv ADD COLUMN w TEXT DEFAULT 'new'");
    const r = await read(db, "SELECT * FROM kv ORDER BY k", 10);
    assert.deepEqual(r.columns, ["k", "v", "w"]);
    assert.deepEqual(r.rows, [["a", "1", "new"], ["b", "2", "new"]]);
    // A view redefined with other names but as many columns: the new names.
    writer.exec("CREATE VIEW vv AS SELECT k AS one FROM kv");
    assert.deepEqual((await read(db, "SELECT * FROM vv", 10)).columns, ["one"]);
    writer.exec("DROP VIEW vv; CREATE VIEW vv AS SELECT k AS two FROM kv");
    assert.deepEqual((await read(db, "SELECT * FROM vv", 10)).columns, ["two"]);
  } finally {
    writer.close();
    db.close();
  }
});

Deno.test("local: a query kept from a --write request is refused when run again read-only", async () => {
  const db = openLocal(await makeFixtureDb(), true);
  const executor = new Executor(db, true, "fixture.db");
  try {
    const sql = "DELETE FROM x RETURNING y";
    assert.equal((await ask(executor, query(sql))).status, 200);
    const get = await ask(executor, { ...query(sql), readOnly: true });
    assert.equal(get.status, 403, JSON.stringify(get.body));
    const select = "SELECT count(*) FROM items";
    assert.equal((await ask(executor, query(select))).status, 200);
    assert.equal((await ask(executor, { ...query(select), readOnly: true })).status, 200);
  } finally {
    executor.close();
  }
});

Deno.test('local: integer params bind as SQLite integers, {"$int"} exactly, reals as reals', async () => {
  const executor = new Executor(openLocal(await makeFixtureDb(), false), false, "fixture.db");
  try {
    const exact = await ask(
      executor,
      query("SELECT ?1 + 0, typeof(?1), (SELECT name FROM items WHERE qty = ?1)", [
        { $int: "9007199254740993" },
      ]),
    );
    assert.deepEqual(exact.body.rows, [["9007199254740993", "integer", "apple"]]);
    const small = await ask(executor, query("SELECT typeof(?1), ?1 / 2", [{ $int: "5" }]));
    assert.deepEqual(small.body.rows, [["integer", 2]]);
    const real = await ask(executor, query("SELECT typeof(?1), ?1 / 2", [5.5]));
    assert.deepEqual(real.body.rows, [["real", 2.75]]);
    const named = await ask(executor, query("SELECT :n", { n: { $int: "-9223372036854775808" } }));
    assert.deepEqual(named.body.rows, [["-9223372036854775808"]]);
    const nameless = await ask(executor, query("SELECT ?, :x", { x: 1 }));
    assert.equal(nameless.status, 400);
    const out = await ask(executor, query("SELECT ?1", [{ $int: "9223372036854775808" }]));
    assert.equal(out.status, 400);
    assert.match(out.body.error, /64-bit/);
  } finally {
    executor.close();
  }
});

Deno.test("local: every kind of request leaves no transaction and no lock behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_local_" });
  const path = `${dir}/t.db`;
  const setup = new Database(path);
  setup.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);
    INSERT INTO items VALUES (1, 'apple'), (2, 'pear'); CREATE TABLE x (y INTEGER);`);
  setup.close();
  const db = openLocal(path, false);
  const executor = new Executor(db, false, "t.db");
  // Another program's connection: busy timeout 0, so a lock still held fails at once.
  const other = new Database(path, { timeout: 0 });
  const requests: WorkerRequest[] = [
    query("SELECT * FROM items"),
    query("SELECT abs(-9223372036854775807 - 1) FROM items"),
    query("SELECT * FROM nowhere"),
    query("DELETE FROM items"),
    query("BEGIN"),
    query("PRAGMA cache_size"),
    query("SELECT sqrt(16)"),
    { ...query("SELECT * FROM items"), format: "csv" },
    { op: "info" },
    { op: "tables" },
    { op: "table", name: "items" },
    { op: "table", name: "nowhere" },
  ];
  try {
    const statuses: number[] = [];
    for (const [i, req] of requests.entries()) {
      await executor.handle(req, {
        head: (h) => statuses.push(h.status),
        chunk: () => {},
        end: () => {},
      });
      assert.equal(db.inTransaction(), false, JSON.stringify(req));
      other.exec(`INSERT INTO x VALUES (${i})`);
    }
    assert.deepEqual(statuses, [200, 400, 400, 403, 403, 200, 200, 200, 200, 200, 200, 404]);
    assert.equal(executor.spoiled, false);
    const { n } = other.prepare("SELECT count(*) AS n FROM x").get() as { n: number };
    assert.equal(n, requests.length);
  } finally {
    other.close();
    executor.close();
  }
});

Deno.test("local: a query the wrapper cannot hold stops one row past its page, as a wrapped one does", async () => {
  const dir = await Deno.makeTempDir({ prefix: "local_as_it_is_" });
  const path = `${dir}/wide.db`;
  const setup = new DatabaseSync(path);
  const many = Array.from({ length: 401 }, (_, i) => `c${i}`).join(", ");
  setup.exec(`CREATE TABLE wide (id INTEGER PRIMARY KEY, ${many});
    INSERT INTO wide (id) WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 3000) SELECT v FROM s;
    CREATE TABLE narrow (id INTEGER PRIMARY KEY);
    INSERT INTO narrow SELECT id FROM wide;`);
  setup.close();
  const db = openLocal(path, false);
  try {
    // Row 2001 overflows: a page of 1,000 never reaches it, however the query is read.
    const bomb = (table: string, at: number) =>
      `SELECT *, CASE WHEN id > ${at} THEN abs(-9223372036854775807 - 1) END AS x FROM ${table} ORDER BY id`;
    for (const table of ["narrow", "wide"]) {
      const page = await read(db, bomb(table, 2000), 1000);
      assert.equal(page.rows.length, 1000, table);
      assert.equal(Number(page.rows[999][0]), 1000, table);
      // Before the page's end, SQLite's own message, from either path.
      assert.match(await failure(() => read(db, bomb(table, 3), 1000)), /integer overflow/, table);
      // Fewer rows than the page: all of them.
      const all = await read(db, `SELECT * FROM ${table} WHERE id <= 5`, 1000);
      assert.deepEqual(all.rows.map((r) => Number(r[0])), [1, 2, 3, 4, 5], table);
    }
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
