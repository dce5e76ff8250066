/**
 * Virtual tables and ALTER TABLE under the rules: what a module's own statements need is
 * allowed (R-tree prepares writes to its shadow tables when it connects, even to read), what a
 * client writes stays judged; and the connection's defences (defensive mode, the limits) are
 * each shown to be on.
 */
import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { api, fileHash, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";
import { openLocal } from "../../src/browse/sql/local.ts";
import { DbError } from "../../src/browse/sql/db.ts";

async function modulesDb(): Promise<string> {
  const path = `${await Deno.makeTempDir({ prefix: "browse_modules_" })}/modules.db`;
  const db = new Database(path);
  db.exec(`
    CREATE VIRTUAL TABLE rt USING rtree(id, x0, x1, y0, y1);
    INSERT INTO rt VALUES (1, 0, 10, 0, 10), (2, 5, 15, 5, 15);
    CREATE VIRTUAL TABLE ri USING rtree_i32(id, x0, x1);
    INSERT INTO ri VALUES (1, 1, 2);
    CREATE VIRTUAL TABLE f4 USING fts4(body);
    INSERT INTO f4 VALUES ('hello world');
    CREATE VIRTUAL TABLE f5 USING fts5(body);
    INSERT INTO f5 VALUES ('hello there');
    CREATE TABLE plain (a INTEGER, b TEXT, c TEXT);
    INSERT INTO plain VALUES (1, 'x', 'y');
  `);
  db.close();
  return path;
}

Deno.test("modules: R-tree, rtree_i32, FTS4 and FTS5 tables read on a read-only server; writes stay refused", async () => {
  const path = await modulesDb();
  const before = await fileHash(path);
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    const reads: [string, unknown][] = [
      ["SELECT id FROM rt WHERE x0 < 6 ORDER BY id", [[1], [2]]],
      ["SELECT id FROM rt WHERE x1 > 12", [[2]]],
      ["SELECT count(*) FROM ri", [[1]]],
      ["SELECT body FROM f4 WHERE f4 MATCH 'hello'", [["hello world"]]],
      ["SELECT body FROM f5 WHERE f5 MATCH 'there'", [["hello there"]]],
      ["SELECT count(*) FROM rt_node", [[1]]],
      ["PRAGMA integrity_check", [["ok"]]],
      ["SELECT name FROM pragma_table_xinfo('rt') ORDER BY cid LIMIT 1", [["id"]]],
    ];
    for (const [sql, rows] of reads) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 200, `${sql}: ${r.text}`);
      assert.deepEqual((r.body as { rows: unknown }).rows, rows, sql);
    }
    for (const t of ["rt", "ri", "f4", "f5"]) {
      assert.equal((await api(b, `/api/tables/${t}`)).status, 200, t);
    }
    for (
      const sql of [
        "INSERT INTO rt VALUES (3, 0, 1, 0, 1)",
        "DELETE FROM rt",
        "UPDATE rt SET x0 = 1",
        "INSERT INTO f5 VALUES ('x')",
        "INSERT INTO ri VALUES (2, 1, 2)",
      ]
    ) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 403, `${sql}: ${r.text}`);
    }
    // Shadow tables: SQLite's defensive mode refuses ordinary SQL writing them.
    for (
      const sql of [
        "INSERT INTO rt_node VALUES (9, x'00')",
        "DELETE FROM rt_rowid",
        "UPDATE rt_parent SET parentnode = 0",
        "UPDATE f5_config SET v = 99",
        "DELETE FROM f4_content",
      ]
    ) {
      const r = await postQuery(b, sql);
      assert.ok([400, 403].includes(r.status), `${sql}: ${r.status} ${r.text}`);
      assert.match(r.text, /may not be modified|would write/, sql);
    }
  } finally {
    await b.close();
  }
  assert.equal(await fileHash(path), before, "the read-only server wrote");
});

Deno.test("modules: --write keeps shadow tables out of reach (defensive mode) and drops what it creates", async () => {
  const path = await modulesDb();
  const b = await startTestBrowser(path, { workers: 1, write: true });
  try {
    for (
      const sql of [
        "UPDATE f5_config SET v = 99",
        "DELETE FROM f5_data",
        "INSERT INTO rt_node VALUES (9, x'00')",
        "UPDATE rt_parent SET parentnode = 0",
        "DELETE FROM f4_content",
      ]
    ) {
      const r = await postQuery(b, sql);
      assert.ok([400, 403].includes(r.status), `${sql}: ${r.status} ${r.text}`);
      assert.match(r.text, /may not be modified|not authorized|not allowed/, sql);
    }
    // Writing through the modules works, and the index stays sound.
    assert.equal((await postQuery(b, "INSERT INTO rt VALUES (3, 0, 1, 0, 1)")).status, 200);
    assert.equal((await postQuery(b, "INSERT INTO f5 VALUES ('more text')")).status, 200);
    const check = await postQuery(b, "INSERT INTO f5(f5) VALUES ('integrity-check')");
    assert.equal(check.status, 200, check.text);
    // A virtual table a client creates it can drop again (SQLITE_DROP_VTABLE is a write).
    assert.equal((await postQuery(b, "CREATE VIRTUAL TABLE made USING fts5(x)")).status, 200);
    const drop = await postQuery(b, "DROP TABLE made");
    assert.equal(drop.status, 200, drop.text);
    assert.equal((await postQuery(b, "SELECT * FROM made")).status, 400);
    // ...and a read-only request (GET) cannot drop one.
    const get = await api(b, `/api/query?query=${encodeURIComponent("DROP TABLE f5")}`);
    assert.equal(get.status, 403, get.text);
  } finally {
    await b.close();
  }
});

Deno.test("alter: --write renames a table and a column and drops a column", async () => {
  const path = await modulesDb();
  const b = await startTestBrowser(path, { workers: 1, write: true });
  try {
    for (
      const sql of [
        "ALTER TABLE plain RENAME TO renamed",
        "ALTER TABLE renamed RENAME COLUMN b TO bee",
        "ALTER TABLE renamed DROP COLUMN c",
        "ALTER TABLE renamed ADD COLUMN d TEXT DEFAULT 'z'",
      ]
    ) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 200, `${sql}: ${r.text}`);
    }
    const r = await postQuery(b, "SELECT * FROM renamed");
    assert.deepEqual(r.body, {
      columns: ["a", "bee", "d"],
      rows: [[1, "x", "z"]],
      stats: (r.body as { stats: unknown }).stats,
      truncated: false,
    });
    // Still refused: TEMP objects, and ALTER on a read-only request.
    assert.equal((await postQuery(b, "CREATE TEMP TABLE tt (a)")).status, 403);
    const get = await api(
      b,
      `/api/query?query=${encodeURIComponent("ALTER TABLE renamed RENAME TO x")}`,
    );
    assert.equal(get.status, 403, get.text);
  } finally {
    await b.close();
  }
});

Deno.test("limits: a fresh connection's first statement is held to the value and LIKE limits", async () => {
  const path = await modulesDb();
  const rows = (sql: string) => {
    // A new connection each time: its very first statement meets the limits.
    const db = openLocal(path, false);
    const out: unknown[][] = [];
    return db.run(sql, undefined, { write: false }, () => {}, (r) => out.push(r) > 0)
      .then(() => out, (e) => e).finally(() => db.close());
  };
  // A download (no row limit: the stream path) of a value past the 64 MiB bound.
  const big = await rows("SELECT zeroblob(100000000)");
  assert.ok(big instanceof DbError, `a 100 MB value was read: ${String(big)}`);
  assert.match((big as Error).message, /too big|failed/);
  const like = await rows(`SELECT 'a' LIKE '${"%".repeat(1001)}'`);
  assert.ok(like instanceof DbError, "a 1,001-character LIKE pattern was accepted");
  const ok = await rows(`SELECT 'a' LIKE '${"%".repeat(999)}'`);
  assert.deepEqual(ok, [[1n]]);
});

Deno.test("wide: a page of 401+ columns over wide rows answers within the caps; the worker lives", async () => {
  const path = `${await Deno.makeTempDir({ prefix: "browse_wide_" })}/wide.db`;
  const db = new Database(path);
  const cols = Array.from({ length: 450 }, (_, i) => `c${i} TEXT`).join(", ");
  db.exec(`CREATE TABLE wide (${cols})`);
  const values = Array.from({ length: 450 }, () => "printf('%.2000c', 'w')").join(", ");
  db.exec(
    `INSERT INTO wide SELECT ${values} FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1100) SELECT n FROM c)`,
  );
  db.exec(`CREATE TABLE one (${cols})`);
  db.exec(`INSERT INTO one SELECT ${values.replaceAll("2000", "200000")}`);
  db.close();
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    const [pid] = b.pool.pids;
    // 1,001 rows × 450 values × 2,000 characters: 900 MB if held whole. Before: 500, worker gone.
    const page = await postQuery(b, "SELECT * FROM wide");
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const body = page.body as { rows: unknown[][]; truncated: boolean };
    assert.equal(body.truncated, true);
    assert.ok(body.rows.length >= 1 && body.rows.length < 1001);
    assert.equal((body.rows[0][0] as string).length, 2000);
    // One row whose values are each past their share of a row: a clear 413.
    const one = await postQuery(b, "SELECT * FROM one");
    assert.equal(one.status, 413, one.text.slice(0, 300));
    assert.match(one.text, /select fewer columns, or download the rows/);
    assert.deepEqual(b.pool.pids, [pid], "the worker lived");
    assert.equal((await postQuery(b, "SELECT count(*) FROM wide")).status, 200);
  } finally {
    await b.close();
  }
});

Deno.test("schema functions: a file whose generated column, index or CHECK uses sqrt, round(sqrt()) or ln opens and reads", async () => {
  const path = `${await Deno.makeTempDir({ prefix: "browse_math_" })}/math.db`;
  // The sqlite3 CLI has the math functions built in, as libSQL's build has.
  const out = await new Deno.Command("sqlite3", {
    args: [
      path,
      `CREATE TABLE m (x REAL CHECK (sqrt(x) >= 0), r REAL GENERATED ALWAYS AS (round(sqrt(x))) VIRTUAL,
         s REAL GENERATED ALWAYS AS (sqrt(x)) STORED);
       CREATE INDEX m_ln ON m (ln(x));
       INSERT INTO m (x) VALUES (16), (2);
       CREATE VIEW v AS SELECT x, ln(x) AS l FROM m;`,
    ],
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    const r = await postQuery(b, "SELECT x, r, s FROM m ORDER BY x");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((r.body as { rows: unknown }).rows, [[2, 1, Math.SQRT2], [16, 4, 4]]);
    const v = await postQuery(b, "SELECT round(l, 3) FROM v WHERE x = 16");
    assert.deepEqual((v.body as { rows: unknown }).rows, [[2.773]]);
    const ix = await postQuery(b, "SELECT x FROM m WHERE ln(x) > 1");
    assert.deepEqual((ix.body as { rows: unknown }).rows, [[16]]);
    assert.equal((await api(b, "/api/tables/m")).status, 200);
  } finally {
    await b.close();
  }
});

Deno.test("schema functions: every function a stored expression could reach is without side effects", async () => {
  const path = `${await Deno.makeTempDir({ prefix: "browse_fl_" })}/fl.db`;
  new Database(path).close();
  // The functions the connection has that a schema may use: neither innocuous nor direct-only
  // ones must be the registered math functions, which are pure.
  const db = openLocal(path, false);
  try {
    const rows = await db.all("SELECT name, flags FROM pragma_function_list");
    const INNOCUOUS = 0x200000;
    const DIRECTONLY = 0x80000;
    const reachable = new Set(
      rows.filter((r) => (Number(r[1]) & (INNOCUOUS | DIRECTONLY)) === 0).map((r) => String(r[0])),
    );
    const pure = new Set([
      // The registered math functions (math.ts).
      ..."acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor ln log log10 log2 mod pi pow power radians sin sinh sqrt tan tanh trunc"
        .split(" "),
      // R-tree's readers, and the FTS functions, which act only on a full-text table's own
      // column (outside one, SQLite's placeholder for them fails): none writes or reads a file.
      ..."rtreecheck rtreedepth rtreenode bm25 fts5 fts5_get_locale highlight match matchinfo offsets optimize snippet"
        .split(" "),
    ]);
    for (const name of reachable) assert.ok(pure.has(name), `${name} is reachable from a schema`);
    // A view or trigger is still judged by the authorizer, as the statement using it is.
    const w = new Database(path);
    w.exec("CREATE VIEW leak AS SELECT file FROM pragma_database_list");
    w.close();
  } finally {
    db.close();
  }
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    assert.equal((await postQuery(b, "SELECT * FROM leak")).status, 403);
  } finally {
    await b.close();
  }
});
