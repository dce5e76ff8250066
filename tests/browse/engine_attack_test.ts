import assert from "node:assert/strict";
import {
  api,
  fileHash,
  makeFixtureDb,
  postQuery,
  startTestBrowser,
} from "../support/browse_fixtures.ts";

const WORKERS = 2;
/** Each statement is sent more often than there are workers, so every worker gets it. */
const ROUNDS = WORKERS * 2 + 1;

async function secretBeside(dir: string): Promise<{ path: string; content: string }> {
  const path = `${dir}/secret.txt`;
  const content = `bot-token-${crypto.randomUUID()}`;
  await Deno.writeTextFile(path, content);
  return { path, content };
}

Deno.test("engine: file functions and modules are refused whatever hides them from the text", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_attack_" });
  const path = await makeFixtureDb(dir);
  const secret = await secretBeside(dir);
  const before = await fileHash(path);
  const b = await startTestBrowser(path, { workers: WORKERS });
  try {
    const attacks = [
      `SELECT $a(') AS x, name, data FROM fsdir('${secret.path}') --'`,
      `SELECT @a(') AS x, data FROM fsdir('${dir}') --'`,
      `SELECT :a(') AS x, readfile('${secret.path}') --'`,
      `SELECT $a::b(') AS x, data FROM fsdir('${dir}') --'`,
      `SELECT * FROM "fsdir"('${dir}')`,
      `SELECT * FROM main.fsdir('${dir}')`,
      `SELECT data FROM fsdir('${dir}') WHERE name LIKE '%secret%'`,
      `EXPLAIN SELECT $a(') FROM fsdir('${dir}') --'`,
      `EXPLAIN QUERY PLAN SELECT readfile('${secret.path}')`,
      `WITH f AS (SELECT * FROM fsdir('${dir}')) SELECT data FROM f`,
      `SELECT * FROM sqlite_dbpage`,
      `SELECT * FROM sqlite_stmt`,
      `SELECT * FROM pragma_database_list`,
      `SELECT * FROM pragma_hard_heap_limit(1000000)`,
      `SELECT * FROM pragma_cache_size(1)`,
      `SELECT $a(') , sqlite_attach(':memory:', 'x', NULL) --'`,
      `ATTACH '${dir}/other.db' AS o`,
      `VACUUM INTO '${dir}/copy.db'`,
      `SELECT load_extension('${dir}/x.so')`,
    ];
    for (const sql of attacks) {
      const answer = await postQuery(b, sql);
      assert.ok(!answer.text.includes(secret.content), `secret leaked by ${sql}`);
      assert.ok([400, 403].includes(answer.status), `${sql}: ${answer.status} ${answer.text}`);
      // A query plan runs nothing (a pragma function's PRAGMA runs when it is read): at most
      // the plan's own text, never the data.
      const plan = await postQuery(b, sql, [], "/api/explain");
      assert.ok(!plan.text.includes(secret.content), `secret leaked by /explain ${sql}`);
      assert.ok(!plan.text.includes(dir), `path leaked by /explain ${sql}`);
      const get = await api(b, "/api/query?query=" + encodeURIComponent(sql));
      assert.ok(!get.text.includes(secret.content));
    }
    // The message names what was refused or is missing.
    const named = await postQuery(b, `SELECT $a(') , readfile('${secret.path}') --'`);
    assert.equal(named.status, 400);
    assert.match((named.body as { error: string }).error, /no such function: readfile/);
    // Allowed table-valued functions and pragma functions still work.
    const ok = await postQuery(
      b,
      "SELECT (SELECT count(*) FROM json_each('[1,2,3]')), (SELECT count(*) FROM pragma_table_list), " +
        "(SELECT count(*) FROM pragma_table_info('items')), (SELECT count(*) FROM json_tree('{}'))",
    );
    assert.equal(ok.status, 200, ok.text);
    assert.equal((ok.body as { rows: number[][] }).rows[0][0], 3);
    assert.equal((ok.body as { rows: number[][] }).rows[0][2], 5);
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(left, ["fixture.db", "secret.txt"], "no file was written");
  } finally {
    await b.close();
  }
  assert.equal(await fileHash(path), before);
});

Deno.test("engine: a PRAGMA that changes settings is refused in every form, every worker still answers", async () => {
  const path = await makeFixtureDb();
  const b = await startTestBrowser(path, { workers: WORKERS });
  try {
    const pragmas = [
      "PRAGMA hard_heap_limit=1000000",
      "EXPLAIN PRAGMA hard_heap_limit=1000000",
      "EXPLAIN QUERY PLAN PRAGMA cache_size=1",
      "PRAGMA writable_schema=ON",
      "/**/PRAGMA soft_heap_limit=1",
      "pragma main.cache_size=5",
      "PRAGMA main.query_only(1)",
      "-- x\n EXPLAIN /* y */ PRAGMA foreign_keys=OFF",
      "; PRAGMA cache_size = 1",
      "PRAGMA temp_store_directory = '/tmp'",
      'PRAGMA "cache_size" = 7',
      "PRAGMA [hard_heap_limit] = 1000",
    ];
    for (const sql of pragmas) {
      for (let i = 0; i < ROUNDS; i++) {
        const r = await postQuery(b, sql);
        assert.equal(r.status, 403, `${sql}: ${r.text}`);
        const explain = await postQuery(b, sql, [], "/api/explain");
        assert.ok([400, 403].includes(explain.status), `/explain ${sql}: ${explain.text}`);
      }
    }
    for (let i = 0; i < ROUNDS; i++) {
      // 5 MB in SQLite's heap: out of memory had a 1 MB heap limit stuck.
      const r = await postQuery(b, "SELECT length(printf('%.*c', 5000000, 'x'))");
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((r.body as { rows: unknown }).rows, [[5000000]]);
      const cache = await postQuery(b, "PRAGMA cache_size");
      assert.deepEqual((cache.body as { rows: unknown }).rows, [[-2000]], "settings unchanged");
      const ws = await postQuery(b, "SELECT count(*) FROM sqlite_schema WHERE name = 'items'");
      assert.deepEqual((ws.body as { rows: unknown }).rows, [[1]]);
    }
    // Read-only pragmas in their read forms answer, with their usual types.
    const uv = await postQuery(b, "PRAGMA user_version");
    assert.deepEqual((uv.body as { rows: unknown }).rows, [[0]]);
    const ti = await postQuery(b, "PRAGMA main.table_info(items)");
    assert.equal((ti.body as { rows: unknown[] }).rows.length, 5);
    const ic = await postQuery(b, "EXPLAIN QUERY PLAN PRAGMA integrity_check");
    assert.equal(ic.status, 200, ic.text);
    const ic2 = await postQuery(b, "PRAGMA integrity_check");
    assert.deepEqual((ic2.body as { rows: unknown }).rows, [["ok"]]);
  } finally {
    await b.close();
  }
});

Deno.test("engine: no absolute path in an answer or an error", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "browse_paths_" }));
  const path = await makeFixtureDb(dir);
  const b = await startTestBrowser(path);
  try {
    const answers = [
      await postQuery(b, "PRAGMA database_list"),
      await postQuery(b, "SELECT * FROM pragma_database_list"),
      await postQuery(b, "PRAGMA main.database_list"),
      await api(b, "/api/info"),
      await postQuery(b, "SELECT * FROM nope"),
    ];
    for (const a of answers) assert.ok(!a.text.includes(dir), a.text);
    // database_list would show the path: it is not on the PRAGMA allow-list.
    assert.equal(answers[0].status, 403);
    assert.equal(answers[1].status, 403);
  } finally {
    await b.close();
  }
});

Deno.test("engine: the authorizer and trusted_schema refuse what views and triggers hide from the text", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_attack_" });
  const path = await makeFixtureDb(dir);
  const { default: Database } = await import("npm:libsql@0.5.29");
  const db = new Database(path);
  db.exec(`CREATE VIEW where_am_i AS SELECT file FROM pragma_database_list;
    CREATE VIEW heap AS SELECT * FROM pragma_hard_heap_limit;
    CREATE VIEW nested AS SELECT * FROM where_am_i;
    CREATE TABLE log (v);
    CREATE TRIGGER spy AFTER INSERT ON log BEGIN
      INSERT INTO log SELECT file FROM pragma_database_list WHERE 0;
    END;`);
  db.close();
  const b = await startTestBrowser(path, { write: true });
  try {
    // No dangerous name in these statements: only what SQLite prepares for them shows it.
    for (const sql of ["SELECT * FROM where_am_i", "SELECT * FROM heap", "SELECT * FROM nested"]) {
      const r = await postQuery(b, sql);
      assert.equal(r.status, 403, `${sql}: ${r.text}`);
      assert.ok(!r.text.includes(dir), r.text);
    }
    const insert = await postQuery(b, "INSERT INTO log VALUES (1)");
    assert.equal(insert.status, 403, `the trigger's program is checked too: ${insert.text}`);
    // Under --write, pragmas that change the connection stay refused; header fields may be set.
    for (
      const sql of [
        "PRAGMA writable_schema = ON",
        "PRAGMA cache_size = 1",
        "PRAGMA journal_mode = OFF",
      ]
    ) {
      assert.equal((await postQuery(b, sql)).status, 403, sql);
    }
    assert.equal((await postQuery(b, "PRAGMA user_version = 5")).status, 200);
    const uv = await postQuery(b, "PRAGMA user_version");
    assert.deepEqual((uv.body as { rows: unknown }).rows, [[5]]);
  } finally {
    await b.close();
  }
});
