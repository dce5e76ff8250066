import assert from "node:assert/strict";
import { WorkerError, WorkerPool } from "../../src/browse/pool/pool.ts";

/**
 * A stand-in worker: reads its config, says it is ready, then exits without reading the
 * request, so the request's write fails under the pool.
 */
function deadAfterReady() {
  const code = `
    const buf = new Uint8Array(65536);
    Deno.stdin.readSync(buf);
    const body = new TextEncoder().encode('{"ready":true}');
    const out = new Uint8Array(5 + body.length);
    new DataView(out.buffer).setUint32(0, body.length + 1);
    out[4] = 1;
    out.set(body, 5);
    Deno.stdout.writeSync(out);
    Deno.exit(0);
  `;
  return () =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", code],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
}

Deno.test("pool: a request whose worker is gone fails with the worker's error, no stray rejection", async () => {
  const pool = await WorkerPool.start({
    size: 1,
    timeoutMs: 30_000,
    config: { database: "unused.db", write: false, label: "unused.db" },
    spawn: deadAfterReady(),
  });
  try {
    // A request larger than a pipe's buffer, so its write cannot complete into the pipe.
    const sql = `SELECT '${"x".repeat(256 * 1024)}'`;
    const error = await pool.run({ op: "query", sql, format: "json", maxRows: 10 })
      .then(() => null, (e) => e);
    assert.ok(error instanceof WorkerError, String(error));
    assert.match(error.message, /worker failed/);
  } finally {
    await pool.close();
  }
});
