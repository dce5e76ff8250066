/**
 * Hostile database files, made with the sqlite3 CLI (whose build has readfile, writefile and
 * the rest), opened by a real `courier browse` process: nothing a file's schema makes SQLite
 * run on its own — virtual-table modules, FTS5 content views, triggers, CHECK constraints,
 * generated columns, DEFAULTs — reaches a file, changes the file, or outlives a request.
 */
import assert from "node:assert/strict";
import { fileHash } from "../support/browse_fixtures.ts";
import { startBrowseProcess } from "../support/browse_process.ts";

async function sqlite3(path: string, sql: string): Promise<void> {
  const out = await new Deno.Command("sqlite3", { args: [path, sql], stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

async function post(url: string, query: string): Promise<{ status: number; text: string }> {
  const res = await fetch(new URL("/api/query", url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, text: await res.text() };
}

/** A directory with a secret beside the database, and the files a hostile schema names. */
async function hostileDir() {
  const dir = await Deno.makeTempDir({ prefix: "browse_hostile_" });
  const secret = `secret-${crypto.randomUUID()}`;
  await Deno.writeTextFile(`${dir}/secret.txt`, secret);
  return { dir, secret, path: `${dir}/hostile.db`, pwned: `${dir}/pwned.txt` };
}

function assertNoneLeft(dir: string): void {
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => !/^hostile\.db/.test(n));
  assert.deepEqual(left.sort(), ["secret.txt"], "no file was written beside the database");
}

Deno.test("hostile file: modules, content views, triggers and stored expressions never reach a file", async () => {
  const { dir, secret, path, pwned } = await hostileDir();
  await sqlite3(
    path,
    `CREATE VIRTUAL TABLE notes USING fts4(body, compress=lower, uncompress=readfile);
    INSERT INTO notes VALUES ('${dir}/secret.txt');
    CREATE VIRTUAL TABLE stats USING fts4(body, compress=lower, uncompress=sha3_query);
    INSERT INTO stats VALUES ('select writefile(''${pwned}'', ''pwned'')');
    CREATE VIRTUAL TABLE quoted USING fts4(body, compress=lower, uncompress='readfile');
    CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT);
    INSERT INTO docs VALUES (1, '${dir}/secret.txt');
    CREATE VIEW docview AS SELECT id, readfile(body) AS body FROM docs;
    CREATE VIRTUAL TABLE f5 USING fts5(body, content='docview', content_rowid='id');
    CREATE VIEW lister AS SELECT name, data FROM fsdir('${dir}');
    CREATE VIEW outer_view AS SELECT * FROM lister;
    CREATE TABLE log (v);
    CREATE TRIGGER spy AFTER INSERT ON log BEGIN SELECT writefile('${pwned}', 'x'); END;
    CREATE TABLE checked (v CHECK (writefile('${pwned}', v) >= 0));
    CREATE TABLE generated (v, g AS (readfile(v)));
    INSERT INTO generated (v) VALUES ('${dir}/secret.txt');
    CREATE TABLE defaulted (v, d DEFAULT (readfile('${dir}/secret.txt')));
    CREATE INDEX by_file ON docs (readfile(body));`,
  ).catch(async () => {
    // An expression index on a non-deterministic function is refused by the CLI: without it.
    await sqlite3(path, "SELECT 1");
  });
  const before = await fileHash(path);
  for (const write of [false, true]) {
    const server = await startBrowseProcess(write ? [path, "--write"] : [path]);
    try {
      const attacks = [
        "SELECT CAST(body AS TEXT), sqrt(4) FROM notes",
        "SELECT hex(body), sqrt(4) FROM stats",
        "SELECT * FROM f5",
        "SELECT * FROM docview",
        "SELECT * FROM lister",
        "SELECT * FROM outer_view",
        "SELECT * FROM generated",
        "SELECT g FROM generated",
        "SELECT * FROM docs INDEXED BY by_file",
      ];
      if (write) {
        attacks.push(
          "INSERT INTO log VALUES (1)",
          "INSERT INTO checked VALUES ('pwned')",
          "INSERT INTO defaulted (v) VALUES (1)",
          "INSERT INTO generated (v) VALUES ('/etc/hostname')",
          "INSERT INTO f5(f5) VALUES ('rebuild')",
        );
      }
      for (const sql of attacks) {
        const r = await post(server.url, sql);
        assert.ok(!r.text.includes(secret), `${sql}: the secret was read`);
        assert.ok([400, 403].includes(r.status), `${sql}: ${r.status} ${r.text}`);
      }
      // A search that finds nothing never calls the module's uncompress: harmless, answered.
      const none = await post(server.url, "SELECT * FROM notes WHERE notes MATCH 'nothing'");
      assert.equal(none.status, 200, none.text);
      // The database still answers what it may.
      const ok = await post(server.url, "SELECT count(*), sqrt(16) FROM docs");
      assert.equal(ok.status, 200, ok.text);
      assert.match(ok.text, /"rows":\[\[1,4\]\]/);
    } finally {
      await server.stop();
    }
    assertNoneLeft(dir);
    if (!write) assert.equal(await fileHash(path), before, "a read-only server changes nothing");
  }
});

Deno.test("hostile file: a --write client cannot name a file function, module, ATTACH or TEMP object", async () => {
  const { dir, secret, path, pwned } = await hostileDir();
  await sqlite3(path, "CREATE TABLE t (a);");
  const server = await startBrowseProcess([path, "--write"]);
  try {
    // The module's function names, quoted as strings or brackets, pass no name check: the
    // table is made, and reading through it fails (no such function in this build, and the
    // authorizer refuses every function not on its list).
    const hostname = Deno.readTextFileSync("/etc/hostname").trim();
    for (
      const [i, name] of ["'readfile'", "[sha3_query]", '"writefile"', "readfile"].entries()
    ) {
      const made = await post(
        server.url,
        `CREATE VIRTUAL TABLE f${i} USING fts4(body, compress=lower, uncompress=${name})`,
      );
      assert.equal(made.status, 200, made.text);
      const arg = name.includes("sha3") ? `select writefile(''${pwned}'', 1)` : "/etc/hostname";
      const put = await post(server.url, `INSERT INTO f${i} VALUES ('${arg}')`);
      assert.equal(put.status, 200, `${name}: ${put.text}`);
      const read = await post(server.url, `SELECT CAST(body AS TEXT), hex(body) FROM f${i}`);
      assert.ok([400, 403].includes(read.status), `${name}: ${read.status} ${read.text}`);
      assert.ok(!read.text.includes(JSON.stringify(hostname)), read.text);
    }
    const attacks = [
      `CREATE VIRTUAL TABLE d USING fsdir`,
      "CREATE VIRTUAL TABLE p USING sqlite_dbpage",
      `ATTACH 'file:${dir}/x.db?mode=rwc' AS x`,
      `ATTACH DATABASE '${dir}/x.db' AS "x"`,
      `VACUUM INTO '${dir}/copy.db'`,
      `VACUUM main INTO 'file:${dir}/copy2.db'`,
      "SELECT load_extension('/nonexistent')",
      "CREATE TEMP VIEW tv AS SELECT 1",
      "CREATE TEMP TRIGGER tt AFTER INSERT ON t BEGIN SELECT 1; END",
      "CREATE TEMPORARY TABLE tt (a)",
      "BEGIN",
      "SAVEPOINT s",
      "PRAGMA writable_schema = ON",
      "PRAGMA trusted_schema = ON",
      "PRAGMA journal_mode = OFF",
    ];
    for (const sql of attacks) {
      const r = await post(server.url, sql);
      assert.ok([400, 403].includes(r.status), `${sql}: ${r.status} ${r.text}`);
    }
    // A view may name any function (SQLite resolves names when it reads the view): reading it
    // fails like the function itself.
    assert.equal(
      (await post(server.url, "CREATE VIEW v AS SELECT readfile('/etc/passwd')")).status,
      200,
    );
    const view = await post(server.url, "SELECT * FROM v");
    assert.equal(view.status, 400, view.text);
    assert.match(view.text, /no such function: readfile/);
    // Nothing a request made outlives it: no TEMP object, no attached database.
    const schemas = await post(server.url, "SELECT count(*) FROM temp.sqlite_schema");
    assert.match(schemas.text, /"rows":\[\[0\]\]/);
  } finally {
    await server.stop();
  }
  assertNoneLeft(dir);
  assert.ok(!(await Deno.readTextFile(`${dir}/secret.txt`)).includes("pwned"));
  assert.ok(secret.length > 0);
});

Deno.test("hostile file: a view swapped by another process while clients read it is checked every time", async () => {
  const { dir, secret, path } = await hostileDir();
  await sqlite3(
    path,
    "CREATE TABLE t (a); INSERT INTO t VALUES (1); CREATE VIEW v AS SELECT a FROM t;",
  );
  const server = await startBrowseProcess([path]);
  const swapper = new Deno.Command("sqlite3", { args: [path], stdin: "piped", stdout: "null" })
    .spawn();
  const writer = swapper.stdin.getWriter();
  try {
    await writer.write(new TextEncoder().encode(".timeout 5000\n"));
    const swap = (body: string) => `BEGIN; DROP VIEW v; CREATE VIEW v AS ${body}; COMMIT;\n`;
    const bad = swap(`SELECT readfile('${dir}/secret.txt') AS a`);
    const good = swap("SELECT a FROM t");
    let seen200 = 0;
    for (let i = 0; i < 200; i++) {
      await writer.write(new TextEncoder().encode(i % 2 === 0 ? bad : good));
      const r = await post(server.url, "SELECT * FROM v");
      assert.ok(!r.text.includes(secret), `request ${i}: the secret was read`);
      assert.ok([200, 400, 403].includes(r.status), `request ${i}: ${r.status} ${r.text}`);
      if (r.status === 200) seen200++;
    }
    assert.ok(seen200 > 0, "the good view is answered between swaps");
  } finally {
    await writer.close();
    await swapper.status;
    await server.stop();
  }
});
