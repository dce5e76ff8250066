import assert from "node:assert/strict";
import Database from "libsql";
import { DatabaseSync } from "node:sqlite";
import { openLocal } from "../../src/browse/sql/db.ts";
import type { Db, RunOptions } from "../../src/browse/sql/db_core.ts";
import { openLocalNode } from "../../src/browse/sql/db_node.ts";
import { jsonRowOf, jsonRowsOf } from "../../src/browse/sql/encode_json.ts";
import { toApiValue } from "../../src/browse/sql/values.ts";
import { Executor } from "../../src/browse/sql/executor.ts";
import type { WorkerRequest } from "../../src/browse/pool/protocol.ts";
import { makeFixtureDb, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";
import { random } from "../support/generated.ts";

/** A read of `sql` as a query request runs it (wrapped, checked as quiet), capped at `limit`. */
async function read(db: Db, sql: string, limit?: number, params?: unknown[]) {
  const options: RunOptions = {
    explain: false,
    wrap: true,
    limit,
    check: () => Promise.resolve({ writes: false, quiet: true }),
  };
  let columns: string[] = [];
  const rows: unknown[][] = [];
  await db.run(sql, params, options, (c) => (columns = c), (r) => {
    if (limit !== undefined && rows.length >= limit) return false;
    rows.push([...r]);
    return true;
  });
  return { columns, rows };
}

/** The message of what `f` throws, or "" when it does not. */
async function failure(f: () => Promise<unknown>): Promise<{ message: string; fallback: boolean }> {
  try {
    await f();
    return { message: "", fallback: false };
  } catch (error) {
    return {
      message: (error as Error).message,
      fallback: (error as { fallback?: boolean }).fallback === true,
    };
  }
}

/** Text values from random bytes: NUL bytes, bytes that are not UTF-8 and real characters. */
function awkwardTexts(seed: number, count: number): string[] {
  const next = random(seed);
  const pieces = [
    "00",
    "ff",
    "c3",
    "c3a9",
    "e282",
    "e282ac",
    "eda080",
    "f09f98",
    "f09f9880",
    "80",
    "41",
    "22",
    "0a",
  ];
  return Array.from({ length: count }, () => {
    let hex = "";
    const n = 1 + Math.floor(next() * 8);
    for (let i = 0; i < n; i++) hex += pieces[Math.floor(next() * pieces.length)];
    return hex;
  });
}

Deno.test("node: every kind of value reads as the libsql reader reads it", async () => {
  const path = await makeFixtureDb();
  const setup = new Database(path);
  const hexes = awkwardTexts(14, 400);
  setup.exec(`CREATE TABLE odd (id INTEGER PRIMARY KEY, t, u);
    INSERT INTO odd (t, u) VALUES
      (CAST(x'610062' AS TEXT), x'00'), (CAST(x'00' AS TEXT), ''), (CAST(x'ff00' AS TEXT), NULL),
      (9223372036854775807, -9223372036854775808), (9007199254740993, -0.0), (1e308, 5e-324),
      (x'', zeroblob(3)), ('é€😀', CAST(x'c0af' AS TEXT));
    ${
    hexes.map((h) => `INSERT INTO odd (t, u) VALUES (CAST(x'${h}' AS TEXT), x'${h}');`).join("\n")
  }`);
  setup.close();
  const node = openLocalNode(path);
  const libsql = openLocal(path, false);
  try {
    const reads: [string, unknown[]?][] = [
      ["SELECT * FROM odd ORDER BY id"],
      ["SELECT t AS a, u AS a, typeof(t), length(t), ?1 / 2, typeof(?2) FROM odd", [5, 1.5]],
      ["SELECT * FROM items WHERE id > :low", { low: 1 } as unknown as unknown[]],
    ];
    // As the API writes them: node:sqlite reads a page's integers as numbers where it can.
    const api = (r: { columns: string[]; rows: unknown[][] }) => ({
      columns: r.columns,
      rows: r.rows.map(jsonRowOf),
    });
    for (const [sql, params] of reads) {
      const ours = api(await read(node, sql, 1000, params));
      const theirs = api(await read(libsql, sql, 1000, params));
      assert.deepEqual(ours, theirs, sql);
    }
    const { rows } = await read(node, "SELECT t, u FROM odd WHERE id <= 5 ORDER BY id", 1000);
    assert.deepEqual(rows.slice(0, 3).map((r) => r[0]), ["a\u0000b", "\u0000", "\uFFFD\u0000"]);
    assert.deepEqual(rows[3], [9223372036854775807n, -9223372036854775808n]);
    assert.deepEqual(rows[4], [9007199254740993n, -0]);
    // The internal reads decode the same way.
    assert.deepEqual(
      await node.all("SELECT t FROM odd WHERE id <= 3 ORDER BY id"),
      await libsql.all("SELECT t FROM odd WHERE id <= 3 ORDER BY id"),
    );
  } finally {
    node.close();
    libsql.close();
  }
});

Deno.test("node: node:sqlite turns text that is not UTF-8 into U+FFFD as TextDecoder does", () => {
  // The reader relies on it: only text with a NUL byte is carried as bytes.
  const db = new DatabaseSync(":memory:");
  const decoder = new TextDecoder();
  try {
    for (const hex of awkwardTexts(7, 2000)) {
      if (/^(..)*?00/.test(hex)) continue;
      const row = db.prepare(`SELECT CAST(x'${hex}' AS TEXT) AS t`).get() as { t: string };
      assert.equal(row.t, decoder.decode(Uint8Array.fromHex(hex)), hex);
    }
  } finally {
    db.close();
  }
});

Deno.test("node: a page read ends its read transaction, stopped early, failed or whole", async () => {
  for (const journal of ["delete", "wal"]) {
    const dir = await Deno.makeTempDir({ prefix: "browse_node_" });
    const path = `${dir}/t.db`;
    const setup = new Database(path);
    setup.exec(`PRAGMA journal_mode = ${journal};
      CREATE TABLE many (n INTEGER); CREATE TABLE x (y INTEGER);
      INSERT INTO many SELECT value FROM generate_series(1, 5000);`);
    setup.close();
    const node = openLocalNode(path);
    // Another program's connection: busy timeout 0, so a held lock fails at once.
    const other = new Database(path, { timeout: 0 });
    const count = async () => (await read(node, "SELECT count(*) FROM x", 10)).rows[0][0];
    try {
      assert.equal((await read(node, "SELECT * FROM many", 10)).rows.length, 10);
      assert.equal(node.inTransaction(), false);
      other.exec("INSERT INTO x VALUES (1)");
      const overflow = await failure(() =>
        read(
          node,
          "SELECT CASE WHEN n > 100 THEN abs(-9223372036854775807 - 1) ELSE n END FROM many",
          1000,
        )
      );
      assert.equal(overflow.message, "integer overflow");
      assert.equal(overflow.fallback, false);
      other.exec("INSERT INTO x VALUES (2)");
      // A value past its share is left to libsql, with the statement ended all the same.
      const big = await failure(() => read(node, "SELECT zeroblob(100000000) FROM many", 1000));
      assert.equal(big.fallback, true, big.message);
      other.exec("INSERT INTO x VALUES (3)");
      // An integer beyond 2^53 makes the page be read again, as BigInts.
      const huge = await read(
        node,
        "SELECT CASE WHEN n = 4000 THEN 9007199254740993 ELSE n END FROM many",
        5000,
      );
      assert.equal(huge.rows[3999][0], 9007199254740993n);
      assert.equal(huge.rows[0][0], 1n);
      other.exec("INSERT INTO x VALUES (4)");
      // Over WAL each read sees the last commit: no snapshot was kept.
      assert.equal(await count(), 4);
      other.exec("INSERT INTO x VALUES (5)");
      assert.equal(await count(), 5);
    } finally {
      other.close();
      node.close();
    }
  }
});

Deno.test("node: what it cannot answer is marked for libsql, before any row", async () => {
  const node = openLocalNode(await makeFixtureDb());
  try {
    for (const sql of ["SELECT value FROM generate_series(1, 3)", "SELECT sqrt(4)", "SELEC 1"]) {
      const f = await failure(() => read(node, sql, 10));
      assert.equal(f.fallback, true, `${sql}: ${f.message}`);
    }
    // A download reads rows one at a time, which node:sqlite's iterate() cannot do faithfully.
    assert.equal((await failure(() => read(node, "SELECT * FROM items"))).fallback, true);
    // Parameters it does not bind as libsql does.
    assert.equal((await failure(() => read(node, "SELECT ?1", 10, [1, 2]))).fallback, true);
    assert.deepEqual((await read(node, "SELECT ?1 + 1 AS v", 10, [41])).rows, [[42]]);
  } finally {
    node.close();
  }
});

Deno.test("node: a kept query binds afresh and follows the schema", async () => {
  const path = await makeFixtureDb();
  const node = openLocalNode(path);
  const writer = new Database(path);
  try {
    assert.deepEqual((await read(node, "SELECT ?1 AS v", 10, [5])).rows, [[5]]);
    for (let i = 0; i < 2; i++) {
      assert.deepEqual((await read(node, "SELECT ?1 AS v", 10)).rows, [[null]]);
    }
    for (let i = 0; i < 2; i++) {
      assert.deepEqual((await read(node, "SELECT * FROM kv ORDER BY k", 10)).columns, ["k", "v"]);
    }
    writer.exec("ALTER TABLE kv ADD COLUMN w TEXT DEFAULT 'new'");
    const r = await read(node, "SELECT * FROM kv ORDER BY k", 10);
    assert.deepEqual(r.columns, ["k", "v", "w"]);
    assert.deepEqual(r.rows, [["a", "1", "new"], ["b", "2", "new"]]);
  } finally {
    writer.close();
    node.close();
  }
});

/** Runs one request on an executor in this process; returns its parsed body. */
async function ask(executor: Executor, sql: string, format: "json" | "csv" = "json") {
  let text = "";
  const req: WorkerRequest = { op: "query", sql, format, maxRows: 100 };
  await executor.handle(req, {
    head: () => {},
    chunk: (t) => (text += typeof t === "string" ? t : new TextDecoder().decode(t)),
    end: () => {},
  });
  return format === "json" ? JSON.parse(text) : text;
}

Deno.test("node: the executor hands what node:sqlite cannot answer to its libsql fallback, made once", async () => {
  const path = await makeFixtureDb();
  let made = 0;
  const fallback = async () => {
    made++;
    const other = new Executor(openLocal(path, false), false, "fixture.db");
    await other.init();
    return other;
  };
  const executor = new Executor(openLocalNode(path), false, "fixture.db", [], fallback);
  await executor.init();
  try {
    const node = (await ask(executor, "SELECT sqlite_version()")).rows[0][0];
    assert.equal(made, 0, "an ordinary query stays with node:sqlite");
    assert.deepEqual((await ask(executor, "SELECT value FROM generate_series(1, 3)")).rows, [[1], [
      2,
    ], [3]]);
    assert.deepEqual((await ask(executor, "SELECT floor(2.5)")).rows, [[2]]);
    assert.equal(
      await ask(executor, "SELECT name FROM items ORDER BY id", "csv"),
      "name\r\napple\r\npear\r\nfig\r\n",
    );
    // An error only libsql's SQLite finds is answered in its words, once.
    assert.match((await ask(executor, "SELECT nope()")).error, /no such function: nope/);
    assert.equal(made, 1);
    // Values past their share of a batch (here 100 rows' worth of 500 kB texts).
    const big = await ask(
      executor,
      "SELECT printf('%.*c', 500000, 'x') AS t, sqlite_version() AS v FROM items",
    );
    assert.deepEqual(big.rows.map((r: string[]) => r[0].length), [500000, 500000, 500000]);
    assert.notEqual(big.rows[0][1], node, "answered by libsql");
    assert.equal(made, 1);
    assert.equal((await ask(executor, "SELECT sqlite_version()")).rows[0][0], node);
    assert.equal(executor.spoiled, false);
  } finally {
    executor.close();
  }
});

Deno.test("node: a file with libSQL's own schema, which node:sqlite cannot read, still browses", async () => {
  const path = await makeFixtureDb();
  const setup = new Database(path);
  setup.exec(`CREATE TABLE r (x) RANDOM ROWID; INSERT INTO r VALUES (7);
    CREATE TABLE v (id INTEGER PRIMARY KEY, e F32_BLOB(3));
    CREATE INDEX v_idx ON v (libsql_vector_idx(e));
    INSERT INTO v (e) VALUES (vector('[1,2,3]'));`);
  setup.close();
  // The premise: node:sqlite's own SQLite cannot read this schema.
  const node = openLocalNode(path);
  assert.match(
    (await failure(() => node.all("SELECT count(*) FROM items"))).message,
    /malformed database schema/,
  );
  node.close();
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    const r = await postQuery(b, "SELECT id, vector_extract(e) FROM v");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((r.body as { rows: unknown }).rows, [[1, "[1,2,3]"]]);
    const random = await postQuery(b, "SELECT x FROM r");
    assert.deepEqual((random.body as { rows: unknown }).rows, [[7]]);
    const items = await postQuery(b, "SELECT count(*) FROM items");
    assert.deepEqual((items.body as { rows: unknown }).rows, [[3]]);
  } finally {
    await b.close();
  }
});

Deno.test("node: a read-only WAL file browses through node:sqlite with the worker's permissions", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_node_wal_" });
  const path = `${dir}/wal.db`;
  const setup = new Database(path);
  setup.exec("PRAGMA journal_mode=WAL; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    // node:sqlite's SQLite answers: it opened the file with the worker's permissions.
    const memory = new DatabaseSync(":memory:");
    const own = memory.prepare("SELECT sqlite_version() AS v").get() as { v: string };
    memory.close();
    const version = await postQuery(b, "SELECT sqlite_version()");
    assert.deepEqual((version.body as { rows: unknown }).rows, [[own.v]]);
    setup.exec("INSERT INTO t VALUES (2)");
    const count = await postQuery(b, "SELECT count(*) FROM t");
    assert.deepEqual((count.body as { rows: unknown }).rows, [[2]]);
  } finally {
    setup.close();
    await b.close();
  }
});

Deno.test("node: a row's JSON is the same written whole or value by value", () => {
  const next = random(3);
  const kinds = [
    () => null,
    () => Math.floor(next() * 2 ** 53) * (next() < 0.5 ? -1 : 1),
    () => (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20),
    () => [-0, Infinity, -Infinity, 5e-324, 1.7976931348623157e308][Math.floor(next() * 5)],
    () => String.fromCharCode(...Array.from({ length: 6 }, () => Math.floor(next() * 0xffff))),
    () => '\u0000"\\\n\u2028\uD800😀',
    () => 9007199254740993n,
    () => 12n,
    () => Uint8Array.of(0, 255),
  ];
  for (let i = 0; i < 5000; i++) {
    const row = Array.from(
      { length: 1 + Math.floor(next() * 6) },
      () => kinds[Math.floor(next() * kinds.length)](),
    );
    assert.equal(jsonRowOf(row), JSON.stringify(row.map(toApiValue)), String(row));
  }
});

Deno.test("node: a page's rows written in one call are the rows written one by one", () => {
  const next = random(4);
  const kinds = [
    () => null,
    () => Math.floor(next() * 2 ** 53) * (next() < 0.5 ? -1 : 1),
    () => [-0, Infinity, -Infinity, NaN, 5e-324][Math.floor(next() * 5)],
    () => String.fromCharCode(...Array.from({ length: 6 }, () => Math.floor(next() * 0xffff))),
    () => '\u0000"\\\n\u2028\uD800😀',
  ];
  for (let i = 0; i < 500; i++) {
    const rows = Array.from(
      { length: Math.floor(next() * 20) },
      () =>
        Array.from({ length: 1 + Math.floor(next() * 5) }, () => kinds[Math.floor(next() * 5)]()),
    );
    assert.equal(jsonRowsOf(rows, Infinity), rows.map(jsonRowOf).join(","));
  }
  // Not plain: left to jsonRowOf, row by row.
  assert.equal(jsonRowsOf([["a", 1], [12n]], Infinity), null);
  assert.equal(jsonRowsOf([[Uint8Array.of(1)]], Infinity), null);
  // Bounded before it is built: text that could pass the limit is never made in one piece.
  const quotes = '"'.repeat(1000);
  assert.equal(jsonRowsOf([[quotes]], 6 * 1000 + 7), `["${'\\"'.repeat(1000)}"]`);
  assert.equal(jsonRowsOf([[quotes]], 6 * 1000 + 6), null);
});

Deno.test("node: pages answered whole are the answers libsql's rows make, cut where they are cut", async () => {
  const path = await makeFixtureDb();
  const node = new Executor(openLocalNode(path), false, "fixture.db");
  const libsql = new Executor(openLocal(path, false), false, "fixture.db");
  await node.init();
  await libsql.init();
  const answer = async (executor: Executor, sql: string, maxRows: number) => {
    let text = "";
    await executor.handle({ op: "query", sql, format: "json", maxRows }, {
      head: () => {},
      chunk: (t) => (text += typeof t === "string" ? t : new TextDecoder().decode(t)),
      end: () => {},
    });
    const body = JSON.parse(text);
    delete body.stats.duration_ms;
    return body;
  };
  try {
    const cases: [string, number][] = [
      ["SELECT id, name, qty, price FROM items ORDER BY id", 100],
      ["SELECT id, name, qty, price FROM items ORDER BY id", 2],
      ["SELECT id, name FROM items ORDER BY id", 0],
      ["SELECT * FROM items WHERE id < 0", 10],
      // A BLOB or a large integer makes its page be written row by row.
      ["SELECT id, data FROM items ORDER BY id", 2],
      ["SELECT 9007199254740993 AS big, 'x' || char(0) || 'y' AS nul", 10],
    ];
    for (const [sql, maxRows] of cases) {
      const ours = await answer(node, sql, maxRows);
      assert.deepEqual(ours, await answer(libsql, sql, maxRows), `${sql} (${maxRows})`);
    }
    assert.equal((await answer(node, cases[1][0], 2)).truncated, true);
    assert.equal((await answer(node, cases[1][0], 2)).rows.length, 2);
  } finally {
    node.close();
    libsql.close();
  }
});

Deno.test("node: a check lists the program under the schema version its statement was prepared at", async () => {
  const path = await makeFixtureDb();
  const node = openLocalNode(path);
  const writer = new Database(path);
  try {
    const before = (await node.often("PRAGMA schema_version"))[0];
    const seen: unknown[] = [];
    await node.run(
      "SELECT * FROM kv",
      undefined,
      {
        explain: false,
        wrap: true,
        limit: 10,
        check: async () => {
          // Another connection changes the schema between the prepare and the listing.
          writer.exec("CREATE TABLE later (z INTEGER)");
          seen.push((await node.often("PRAGMA schema_version"))[0]);
          return { writes: false, quiet: true };
        },
      },
      () => {},
      () => true,
    );
    assert.deepEqual(seen, [before]);
    // Outside a check it is read afresh.
    assert.notEqual((await node.often("PRAGMA schema_version"))[0], before);
  } finally {
    writer.close();
    node.close();
  }
});

Deno.test("node: a request's reads share one read transaction, ended when its rows are read", async () => {
  const node = openLocalNode(await makeFixtureDb());
  const inCheck = async (sql: string) => {
    let seen: boolean | undefined;
    node.hold!();
    assert.equal(node.inTransaction(), false, "begun at the first read, not before");
    await node.often("PRAGMA schema_version");
    const before = node.inTransaction();
    await node.run(
      sql,
      undefined,
      {
        explain: false,
        wrap: true,
        limit: 10,
        check: () => {
          seen = node.inTransaction();
          return Promise.resolve({ writes: false, quiet: true });
        },
      },
      () => {},
      () => true,
    );
    const after = node.inTransaction();
    node.release!();
    return { before, seen, after };
  };
  try {
    assert.deepEqual(await inCheck("SELECT * FROM items"), {
      before: true,
      seen: true,
      after: false,
    });
    // A statement that is not a query runs outside it, as it always did.
    assert.deepEqual(await inCheck("PRAGMA cache_size"), {
      before: true,
      seen: false,
      after: false,
    });
    // Without hold() every read is its own transaction.
    await node.often("PRAGMA schema_version");
    assert.equal(node.inTransaction(), false);
  } finally {
    node.close();
  }
});

Deno.test("node: every kind of request leaves no transaction and no lock behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_node_" });
  const path = `${dir}/t.db`;
  const setup = new Database(path);
  setup.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);
    INSERT INTO items VALUES (1, 'apple'), (2, 'pear'); CREATE TABLE x (y INTEGER);`);
  setup.close();
  const fallback = async () => {
    const other = new Executor(openLocal(path, false), false, "t.db");
    await other.init();
    return other;
  };
  const node = openLocalNode(path);
  const executor = new Executor(node, false, "t.db", [], fallback);
  await executor.init();
  // Another program's connection: busy timeout 0, so a lock still held fails at once.
  const other = new Database(path, { timeout: 0 });
  const requests: WorkerRequest[] = [
    { op: "query", sql: "SELECT * FROM items", format: "json", maxRows: 100 },
    {
      op: "query",
      sql: "SELECT abs(-9223372036854775807 - 1) FROM items",
      format: "json",
      maxRows: 100,
    },
    { op: "query", sql: "SELECT * FROM nowhere", format: "json", maxRows: 100 },
    { op: "query", sql: "DELETE FROM items", format: "json", maxRows: 100 },
    { op: "query", sql: "PRAGMA cache_size", format: "json", maxRows: 100 },
    { op: "query", sql: "SELECT value FROM generate_series(1, 3)", format: "json", maxRows: 100 },
    { op: "query", sql: "SELECT * FROM items", format: "csv", maxRows: 100 },
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
      assert.equal(node.inTransaction(), false, JSON.stringify(req));
      other.exec(`INSERT INTO x VALUES (${i})`);
    }
    assert.deepEqual(statuses, [200, 400, 400, 403, 200, 200, 200, 200, 200, 200, 404]);
    assert.equal(executor.spoiled, false);
    const { n } = other.prepare("SELECT count(*) AS n FROM x").get() as { n: number };
    assert.equal(n, requests.length);
  } finally {
    other.close();
    executor.close();
  }
});
