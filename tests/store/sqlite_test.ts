import assert from "node:assert/strict";
import { Database, SqliteError } from "../../src/store/sqlite.ts";

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("sqlite: rows come as arrays, writes say how many rows they changed", () =>
  withDir(async (dir) => {
    const db = Database.open(`${dir}/a.db`);
    try {
      await db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER, b BLOB)");
      const insert = "INSERT INTO t VALUES (?, ?, ?)";
      await db.execute({ sql: insert, args: ["a", 1, new Uint8Array([1, 2])] });
      await db.execute({ sql: insert, args: ["b", 2, null] });
      const updated = await db.execute({ sql: "UPDATE t SET v = v + ?1 WHERE v >= ?1", args: [1] });
      assert.equal(updated.rowsAffected, 2);
      const rs = await db.execute("SELECT k, v, b FROM t ORDER BY k");
      assert.deepEqual(rs.rows, [["a", 2, new Uint8Array([1, 2])], ["b", 3, null]]);
      assert.equal(rs.rowsAffected, 0);
      // The same text again runs the statement prepared the first time, with new arguments.
      const again = await db.execute({ sql: "SELECT k FROM t WHERE v = ?", args: [3] });
      assert.deepEqual(again.rows, [["b"]]);
      // Many different texts (more than are kept prepared) all still run.
      for (let i = 0; i < 100; i++) {
        assert.deepEqual((await db.execute(`SELECT ${i}`)).rows, [[i]]);
      }
    } finally {
      db.close();
    }
  }));

Deno.test("sqlite: a batch commits all its statements or none", () =>
  withDir(async (dir) => {
    const db = Database.open(`${dir}/a.db`);
    try {
      await db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)");
      const results = await db.batch(["INSERT INTO t VALUES ('a')", "INSERT INTO t VALUES ('b')"]);
      assert.deepEqual(results.map((r) => r.rowsAffected), [1, 1]);
      await assert.rejects(
        db.batch(["INSERT INTO t VALUES ('c')", "INSERT INTO t VALUES ('a')"]),
        (e: Error) => {
          assert.ok(e instanceof SqliteError);
          assert.equal(e.code, "SQLITE_CONSTRAINT");
          return true;
        },
      );
      // 'c' went back with the failed batch, and the connection is out of the transaction.
      assert.deepEqual((await db.execute("SELECT k FROM t ORDER BY k")).rows, [["a"], ["b"]]);
      await db.batch(["INSERT INTO t VALUES ('d')"]);
      assert.deepEqual((await db.execute("SELECT count(*) FROM t")).rows, [[3]]);
    } finally {
      db.close();
    }
  }));

Deno.test("sqlite: SQLite's result codes come with the error, in libSQL's words", () =>
  withDir(async (dir) => {
    // SQLITE_FULL: tests/store/failure_test.ts, through this module.

    // Another connection holds the write lock and this one will not wait: SQLITE_BUSY, and the
    // batch that wanted the lock ran nothing.
    const a = Database.open(`${dir}/busy.db`);
    const b = Database.open(`${dir}/busy.db`);
    try {
      await a.execute("CREATE TABLE t (x)");
      await b.execute("PRAGMA busy_timeout = 0");
      await a.execute("BEGIN IMMEDIATE");
      await assert.rejects(b.batch(["INSERT INTO t VALUES (1)"]), (e: Error) => {
        assert.ok(e instanceof SqliteError);
        assert.equal(e.code, "SQLITE_BUSY");
        return true;
      });
      await a.execute("ROLLBACK");
      await b.batch(["INSERT INTO t VALUES (1)"]);
      assert.deepEqual((await a.execute("SELECT x FROM t")).rows, [[1]]);
    } finally {
      a.close();
      b.close();
    }

    // A directory that does not exist: the open itself fails, and says so.
    assert.throws(() => Database.open(`${dir}/missing/x.db`), (e: Error) => {
      assert.ok(e instanceof SqliteError);
      assert.equal(e.code, "SQLITE_CANTOPEN");
      return true;
    });
  }));
