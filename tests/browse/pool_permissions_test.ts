import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { WorkerPool } from "../../src/browse/pool/pool.ts";
import { encodeFrame, FRAME_JSON } from "../../src/browse/pool/protocol.ts";
import { workerArgs, workerPermissions, workerSpawner } from "../../src/browse/pool/spawn.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";

const PROBE = new URL("../support/worker_probe.ts", import.meta.url);

Deno.test("permissions: a worker can open its database and do nothing else", async () => {
  const path = await makeFixtureDb();
  const secretDir = await Deno.makeTempDir({ prefix: "browse_secret_" });
  const outside = `${secretDir}/config.yaml`;
  await Deno.writeTextFile(outside, "bot_token: 123:secret\n");
  const config = { database: path, write: false, label: "fixture.db" };
  // The pool's own arguments and environment, with the probe in place of the worker module.
  const args = workerArgs(config, PROBE);
  assert.ok(!args.includes("-A") && !args.some((a) => a.startsWith("--allow-all")));
  assert.ok(!args.some((a) => /^--allow-(write|run|net)/.test(a)), args.join(" "));
  // node:sqlite opens a read-only file only with leave to read that one path.
  assert.deepEqual(args.filter((a) => a.startsWith("--allow-read")), [`--allow-read=${path}`]);
  const child = workerSpawner(config, PROBE)();
  const writer = child.stdin.getWriter();
  await writer.write(encodeFrame(FRAME_JSON, JSON.stringify({ ...config, outside })));
  await writer.close();
  const out = await new Response(child.stdout).text();
  assert.ok((await child.status).success, out);
  const report = JSON.parse(out);
  assert.deepEqual(report.rows, [[3]]);
  assert.equal(report.readOutside, "NotCapable");
  assert.equal(report.readPasswd, "NotCapable");
  // The database file itself is open to JS (node:sqlite's own check), its directory is not.
  assert.equal(report.readDatabase, "allowed");
  assert.equal(report.writeDir, "NotCapable");
  assert.equal(report.run, "NotCapable");
  assert.equal(report.net, "NotCapable");
  assert.equal(report.env, "NotCapable");
  assert.deepEqual(report.permissions, {
    read: "prompt",
    write: "prompt",
    net: "prompt",
    run: "prompt",
    env: "prompt",
    ffi: "prompt",
    sys: "prompt",
  });
  // The V8 heap limit courier sets (512 MiB old space, small semi-spaces).
  assert.ok(report.heapLimitMiB >= 512 && report.heapLimitMiB < 600, `${report.heapLimitMiB}`);
});

Deno.test("permissions: those are enough for WAL files and for --write", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_wal_" });
  const path = `${dir}/wal.db`;
  const db = new Database(path);
  db.exec("PRAGMA journal_mode=WAL; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  db.close();
  const pool = await WorkerPool.start({
    size: 1,
    timeoutMs: 5000,
    config: { database: path, write: true, label: "wal.db" },
  });
  const text = async (sql: string) => {
    const a = await pool.run({ op: "query", sql, format: "json", maxRows: 10 });
    return JSON.parse(new TextDecoder().decode(a.body as Uint8Array));
  };
  try {
    assert.equal((await text("INSERT INTO t VALUES (2)")).stats.rows_affected, 1);
    assert.deepEqual((await text("SELECT count(*) FROM t")).rows, [[2]]);
  } finally {
    await pool.close();
  }
});

Deno.test("permissions: a remote database gets the network to its host alone, a file its path", () => {
  assert.deepEqual(
    workerPermissions({ database: "libsql://db.example.turso.io", write: false, label: "x" }),
    ["--allow-net=db.example.turso.io", "--allow-env=WS_NO_UTF_8_VALIDATE,WS_NO_BUFFER_UTIL"],
  );
  assert.deepEqual(
    workerPermissions({ database: "/data/c.db", write: false, label: "x" }),
    ["--allow-read=/data/c.db"],
  );
  assert.deepEqual(
    workerPermissions({ database: "file:/data/c.db", write: true, label: "x" }),
    ["--allow-read=/data/c.db", "--allow-write=/data/c.db"],
  );
  // Deno's lists split at commas: such a name is granted through its directory.
  assert.deepEqual(
    workerPermissions({ database: "/data/a,b.db", write: false, label: "x" }),
    ["--allow-read=/data"],
  );
});

Deno.test("permissions: a remote database's worker reaches its host, over HTTP for http:// and ws:// alike", async () => {
  // A stand-in for a libSQL server on loopback: it refuses everything, but is reached.
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(`${req.method} ${new URL(req.url).pathname}`);
    return new Response("no", { status: 404 });
  });
  try {
    for (const scheme of ["http", "ws"]) {
      const pool = await WorkerPool.start({
        size: 1,
        timeoutMs: 5000,
        config: { database: `${scheme}://127.0.0.1:${server.addr.port}`, write: false, label: "r" },
      });
      try {
        const a = await pool.run({ op: "query", sql: "SELECT 1", format: "json", maxRows: 1 });
        const error = JSON.parse(new TextDecoder().decode(a.body as Uint8Array)).error;
        assert.equal(a.head.status, 400);
        assert.match(error, /404/, "the server's own refusal, not a permission error");
        assert.doesNotMatch(error, /NotCapable|Requires net access/);
      } finally {
        await pool.close();
      }
    }
    // A ws:// URL is spoken over HTTP (remote.ts, overHttp): no WebSocket is opened.
    assert.ok(seen.length >= 2 && seen.every((s) => s === "POST /v2/pipeline"), seen.join(", "));
  } finally {
    await server.shutdown();
  }
});
