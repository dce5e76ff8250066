import assert from "node:assert/strict";
import {
  api,
  fileHash,
  makeFixtureDb,
  postQuery,
  startTestBrowser,
} from "../support/browse_fixtures.ts";

const WRITES = [
  "INSERT INTO items (name) VALUES ('new')",
  "UPDATE items SET name = 'changed'",
  "DELETE FROM items",
  "REPLACE INTO kv VALUES ('a', 'z')",
  "CREATE TABLE t2 (a)",
  "CREATE TEMP TABLE t3 (a)",
  "DROP TABLE x",
  "ALTER TABLE items ADD COLUMN z",
  "CREATE INDEX i2 ON items(price)",
  "CREATE VIEW v2 AS SELECT 1",
  "CREATE TRIGGER tr AFTER INSERT ON items BEGIN DELETE FROM x; END",
  "PRAGMA user_version = 7",
  "PRAGMA journal_mode = WAL",
  "PRAGMA foreign_keys = OFF",
  "PRAGMA main.application_id = 1",
  "VACUUM",
  "REINDEX",
  "ANALYZE",
  "WITH d AS (SELECT 1) DELETE FROM items",
  "BEGIN IMMEDIATE",
  "SAVEPOINT s",
];

/**
 * Refused on every server. The file functions and modules are not in this build at all: SQLite
 * answers "no such function" or "no such table" (400), the rest are refused by the rules (403).
 */
const ALWAYS_REFUSED = [
  "ATTACH DATABASE 'OUT.db' AS other",
  "ATTACH ':memory:' AS m",
  "DETACH other",
  "VACUUM INTO 'OUT.db'",
  "SELECT writefile('OUT.txt', 'pwned')",
  "SELECT readfile('/etc/passwd')",
  "SELECT * FROM fsdir('/')",
  "SELECT name FROM fsdir('.')",
  "SELECT load_extension('OUT.so')",
  "SELECT sha3_query('SELECT writefile(''OUT.txt'', 1)')",
  "SELECT * FROM sqlite_dbpage",
  "SELECT \"WriteFile\"('OUT.txt', 1)",
  "SELECT fts3_tokenizer('simple')",
];

/** Refused by the rules (403), or naming what this build does not have (400). */
function refusedOrMissing(r: { status: number; text: string }): boolean {
  if (r.status === 403) return true;
  return r.status === 400 && /no such (function|table|module)|not allowed/.test(r.text);
}

Deno.test("read-only: every write path is refused with 403 and the file is unchanged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_ro_" });
  const path = await makeFixtureDb(dir);
  const before = await fileHash(path);
  const b = await startTestBrowser(path);
  try {
    for (const sql of [...WRITES, ...ALWAYS_REFUSED]) {
      const q = sql.replaceAll("OUT", `${dir}/out`);
      const post = await postQuery(b, q);
      assert.equal(typeof (post.body as { error: string }).error, "string");
      const get = await api(b, "/api/query?query=" + encodeURIComponent(q));
      if (WRITES.includes(sql)) {
        assert.equal(post.status, 403, `${q}: ${post.text}`);
        assert.equal(get.status, 403, `GET ${q}`);
      } else {
        assert.ok(refusedOrMissing(post), `${q}: ${post.text}`);
        assert.ok(refusedOrMissing(get), `GET ${q}: ${get.text}`);
      }
      assert.equal(await fileHash(path), before, `file changed after ${q}`);
    }
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.startsWith("out"));
    assert.deepEqual(left, [], "no file was written");
    const r = await postQuery(b, "SELECT count(*) FROM items");
    assert.deepEqual((r.body as { rows: unknown }).rows, [[3]], "rows intact, reads still work");
    // Read-only pragmas and EXPLAIN still work.
    assert.equal((await postQuery(b, "PRAGMA user_version")).status, 200);
    assert.equal((await postQuery(b, "PRAGMA table_info(items)")).status, 200);
    // An EXPLAIN is held to the rules of the statement it explains.
    assert.equal((await postQuery(b, "EXPLAIN QUERY PLAN DELETE FROM items")).status, 403);
    assert.equal((await postQuery(b, "EXPLAIN QUERY PLAN SELECT * FROM items")).status, 200);
    assert.equal(
      (await postQuery(
        b,
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < 5) SELECT * FROM c",
      )).status,
      200,
    );
  } finally {
    await b.close();
  }
  assert.equal(await fileHash(path), before);
});

Deno.test("read-only: a view that calls a file function is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_ro_" });
  const path = await makeFixtureDb(dir);
  const { default: Database } = await import("npm:libsql@0.5.29");
  const db = new Database(path);
  db.exec(`CREATE VIEW sneaky AS SELECT readfile('/etc/hostname') AS f;
    CREATE VIEW lister AS SELECT name FROM fsdir('/');
    CREATE VIEW wrapper AS SELECT * FROM lister;`);
  db.close();
  const before = await fileHash(path);
  const b = await startTestBrowser(path);
  try {
    for (const view of ["sneaky", "lister", "wrapper"]) {
      const r = await postQuery(b, `SELECT * FROM ${view}`);
      assert.ok(refusedOrMissing(r), `${view}: ${r.text}`);
    }
  } finally {
    await b.close();
  }
  assert.equal(await fileHash(path), before);
});

Deno.test("--write: writes through POST; GET stays read-only; file functions still refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_rw_" });
  const path = await makeFixtureDb(dir);
  const b = await startTestBrowser(path, { write: true });
  try {
    const ins = await postQuery(b, "INSERT INTO items (name, qty) VALUES (?, ?)", ["kiwi", 5]);
    assert.equal(ins.status, 200, ins.text);
    const stats = (ins.body as { stats: Record<string, unknown> }).stats;
    assert.equal(stats.rows_affected, 1);
    assert.equal(stats.last_insert_rowid, 4);
    const get = await api(b, "/api/query?query=" + encodeURIComponent("DELETE FROM items"));
    assert.equal(get.status, 403, "a GET must never write");
    for (const sql of ALWAYS_REFUSED) {
      const q = sql.replaceAll("OUT", `${dir}/out`);
      const r = await postQuery(b, q);
      assert.ok(refusedOrMissing(r), `${q}: ${r.text}`);
    }
    assert.equal((await postQuery(b, "BEGIN")).status, 403);
    const count = await postQuery(b, "SELECT count(*) FROM items");
    assert.deepEqual((count.body as { rows: unknown }).rows, [[4]]);
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.startsWith("out"));
    assert.deepEqual(left, []);
  } finally {
    await b.close();
  }
});
