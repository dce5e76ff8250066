import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { api, makeFixtureDb, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";

const FFFD = "\uFFFD";

/** The fixture plus text that is not UTF-8: in a value, a default and a table's name. */
async function brokenTextDb(): Promise<string> {
  const path = await makeFixtureDb();
  const db = new Database(path);
  db.exec(`CREATE TABLE bad (id INTEGER PRIMARY KEY, t TEXT DEFAULT 'ok', n TEXT);
    CREATE TABLE hazard (t TEXT DEFAULT (CAST(x'ff' AS TEXT)));
    CREATE VIEW over_hazard AS SELECT * FROM hazard;
    INSERT INTO bad (t, n) VALUES (CAST(x'41ff42' AS TEXT), 'ok'), (CAST(x'c3' AS TEXT), CAST(x'ff00ff' AS TEXT));
    CREATE INDEX bad_t ON bad (t);
    CREATE VIEW blobby AS SELECT x'ff' AS b, CAST(x'fe' AS TEXT) AS t;
    PRAGMA writable_schema = ON;
    UPDATE sqlite_schema SET name = CAST(x'62ff' AS TEXT), tbl_name = CAST(x'62ff' AS TEXT),
      sql = 'CREATE TABLE "' || CAST(x'62ff' AS TEXT) || '" (y INTEGER)' WHERE name = 'x';`);
  db.close();
  return path;
}

Deno.test("text that is not UTF-8 is answered with U+FFFD in every format, never a 500", async () => {
  const path = await brokenTextDb();
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    const cast = await postQuery(b, "SELECT CAST(x'ff' AS TEXT) AS t, x'ff' AS b, 'é' AS ok");
    assert.equal(cast.status, 200, cast.text);
    assert.deepEqual((cast.body as { rows: unknown }).rows, [[FFFD, {
      $base64: true,
      encoded: "/w==",
    }, "é"]]);
    const rows = await postQuery(b, "SELECT t, n FROM bad ORDER BY id");
    assert.equal(rows.status, 200, rows.text);
    assert.deepEqual((rows.body as { rows: unknown }).rows, [
      [`A${FFFD}B`, "ok"],
      [FFFD, `${FFFD}\u0000${FFFD}`],
    ]);
    for (const format of ["csv", "xml", "json"]) {
      const r = await api(
        b,
        `/api/query?format=${format}&query=${encodeURIComponent("SELECT t FROM bad")}`,
      );
      assert.equal(r.status, 200, `${format}: ${r.text}`);
      assert.ok(r.text.includes(`A${FFFD}B`), `${format}: ${r.text}`);
    }
    for (
      const sql of [
        "EXPLAIN SELECT x'ff', CAST(x'c3a9ff' AS TEXT)",
        "EXPLAIN QUERY PLAN SELECT * FROM bad WHERE t = CAST(x'ff' AS TEXT)",
        "PRAGMA integrity_check",
        "PRAGMA quick_check",
        "INSERT INTO bad (n) VALUES (x'ff')",
        "SELECT * FROM sqlite_schema",
      ]
    ) {
      const r = await postQuery(b, sql);
      assert.ok([200, 403].includes(r.status), `${sql}: ${r.status} ${r.text}`);
    }
    // Definitions holding such text answer like any other (nothing reads their programs).
    for (
      const sql of ["SELECT * FROM blobby", "SELECT * FROM hazard", "SELECT * FROM over_hazard"]
    ) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 200, `${sql}: ${r.text}`);
    }
    const blobby = await postQuery(b, "SELECT * FROM blobby");
    assert.deepEqual((blobby.body as { rows: unknown }).rows, [[
      { $base64: true, encoded: "/w==" },
      FFFD,
    ]]);
    const tables = await api(b, "/api/tables");
    assert.equal(tables.status, 200, tables.text);
    assert.ok((tables.body as string[]).includes(`b${FFFD}`), tables.text);
    const table = await api(b, "/api/tables/bad");
    assert.equal(table.status, 200, table.text);
    const cols = (table.body as { columns: { name: string; default: string | null }[] }).columns;
    assert.equal(cols[1].default, "'ok'");
    const hazard = await api(b, "/api/tables/hazard");
    assert.equal(hazard.status, 200, hazard.text);
    // Reading through bytes keeps the statement's own order and duplicate column names.
    const ordered = await postQuery(
      b,
      "SELECT value AS v, value % 7 AS v FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 600) SELECT value FROM s) ORDER BY value % 7, value DESC",
    );
    const expected = Array.from({ length: 600 }, (_, i) => i + 1)
      .sort((x, y) => x % 7 - y % 7 || y - x).map((v) => [v, v % 7]);
    assert.deepEqual((ordered.body as { columns: unknown }).columns, ["v", "v"]);
    assert.deepEqual((ordered.body as { rows: unknown }).rows, expected);
    // The worker is alive and well.
    const one = await postQuery(b, "SELECT 1");
    assert.deepEqual((one.body as { rows: unknown }).rows, [[1]]);
  } finally {
    await b.close();
  }
});

Deno.test("--write: RETURNING text that is not UTF-8 answers U+FFFD, the worker lives", async () => {
  const path = await makeFixtureDb();
  const b = await startTestBrowser(path, { write: true, workers: 1 });
  try {
    const pids = b.pool.pids;
    const statements = [
      "CREATE TABLE r (id INTEGER PRIMARY KEY, a TEXT)",
      "INSERT INTO r (a) VALUES (CAST(x'ff80' AS TEXT)) RETURNING a",
      "UPDATE r SET a = CAST(x'41fe' AS TEXT) RETURNING a, typeof(a)",
      "INSERT INTO r (a) VALUES (CAST(x'c3' AS TEXT)), ('ok') RETURNING id, a",
      "DELETE FROM r WHERE id = 1 RETURNING a",
    ];
    const rows = [];
    for (const sql of statements) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 200, `${sql}: ${r.text}`);
      rows.push((r.body as { rows: unknown[][] }).rows);
    }
    assert.deepEqual(rows.slice(1), [
      [[`${FFFD}${FFFD}`]],
      [[`A${FFFD}`, "text"]],
      [[2, FFFD], [3, "ok"]],
      [[`A${FFFD}`]],
    ]);
    assert.deepEqual(b.pool.pids, pids, "no worker died");
    // Read-only reads of the same values, as PRAGMA and EXPLAIN answers too.
    assert.equal((await postQuery(b, "SELECT a FROM r")).status, 200);
    assert.equal((await postQuery(b, "PRAGMA journal_mode")).status, 200);
    const check = await postQuery(b, "PRAGMA integrity_check(1)");
    assert.deepEqual((check.body as { rows: unknown }).rows, [["ok"]]);
  } finally {
    await b.close();
  }
});

Deno.test("text with NUL beside BLOBs with zero bytes: each value as it is stored", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_nul_" });
  const path = `${dir}/nul.db`;
  // The row check compares each value with '': BLOBs with zero bytes pass it too, and must
  // come out as the BLOBs they are; numbers never pass it.
  const out = await new Deno.Command("sqlite3", {
    args: [
      path,
      `CREATE TABLE t (a COLLATE nocase, b BLOB);
      INSERT INTO t VALUES ('x', x'00ff00'), ('y' || char(0) || 'z', x'0001'), ('plain', x'41'),
        (NULL, zeroblob(3)), (7, 'tail' || char(0)), (2.5, NULL), ('   ', char(0));`,
    ],
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const b = await startTestBrowser(path, { workers: 1 });
  try {
    const blob = (encoded: string) => ({ $base64: true, encoded });
    const expected = [
      ["x", blob("AP8A")],
      ["y\u0000z", blob("AAE=")],
      ["plain", blob("QQ==")],
      [null, blob("AAAA")],
      [7, "tail\u0000"],
      [2.5, null],
      ["   ", "\u0000"],
    ];
    const page = await postQuery(b, "SELECT a, b FROM t ORDER BY rowid");
    assert.equal(page.status, 200, page.text);
    assert.deepEqual((page.body as { rows: unknown }).rows, expected);
    // A download reads row by row, through the same check.
    const csv = await api(
      b,
      `/api/query?format=csv&query=${encodeURIComponent("SELECT a FROM t ORDER BY rowid")}`,
    );
    assert.equal(csv.status, 200, csv.text);
    assert.ok(csv.text.includes("y\u0000z"), JSON.stringify(csv.text));
  } finally {
    await b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
