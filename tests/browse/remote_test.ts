import assert from "node:assert/strict";
import { postQuery, startTestBrowser } from "../support/browse_fixtures.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";

const missing = hranaMissing();

async function sqlite3(path: string, sql: string): Promise<string> {
  const out = await new Deno.Command("sqlite3", { args: [path, sql], stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** The database's content and header fields, as the sqlite3 CLI dumps them (the server owns the file). */
function dump(path: string): Promise<string> {
  return sqlite3(path, ".dump");
}

Deno.test({
  name:
    "remote: read-only through http:// and ws:// URLs (both spoken over HTTP) against libSQL's Hrana server; --write writes",
  ignore: missing !== null,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "browse_remote_" });
    const path = `${dir}/remote.db`;
    await sqlite3(path, "CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x');");
    const server = await startHrana(path);
    try {
      for (const scheme of ["http", "ws"]) {
        const url = `${scheme}://127.0.0.1:${server.port}`;
        const before = await dump(path);
        const b = await startTestBrowser(url, { workers: 1, label: "remote" });
        try {
          const read = await postQuery(b, "SELECT a, b FROM t");
          assert.equal(read.status, 200, read.text);
          assert.deepEqual((read.body as { rows: unknown }).rows, [[1, "x"]]);
          assert.equal((await postQuery(b, "PRAGMA table_info(t)")).status, 200);
          for (
            const sql of [
              "INSERT INTO t VALUES (2, 'y')",
              "WITH q AS (SELECT 1) DELETE FROM t",
              "DELETE FROM t RETURNING a",
              "PRAGMA user_version = 5",
              "CREATE TABLE u (a)",
              "ATTACH 'x.db' AS x",
              "BEGIN",
            ]
          ) {
            const r = await postQuery(b, sql);
            assert.equal(r.status, 403, `${scheme} ${sql}: ${r.text}`);
          }
        } finally {
          await b.close();
        }
        assert.equal(await dump(path), before, `${scheme}: the read-only browser wrote`);
        const w = await startTestBrowser(url, { workers: 1, label: "remote", write: true });
        try {
          const ins = await postQuery(w, "INSERT INTO t VALUES (2, 'y')");
          assert.equal(ins.status, 200, ins.text);
          const count = await postQuery(w, "SELECT count(*) FROM t");
          assert.deepEqual((count.body as { rows: unknown }).rows, [[2]]);
          assert.equal((await postQuery(w, "DELETE FROM t WHERE a = 2")).status, 200);
        } finally {
          await w.close();
        }
      }
    } finally {
      await server.stop();
    }
  },
});

if (missing !== null) console.log(`remote tests skipped: ${missing}`);
