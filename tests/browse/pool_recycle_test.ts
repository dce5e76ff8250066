import assert from "node:assert/strict";
import { WorkerPool } from "../../src/browse/pool/pool.ts";
import { bounded } from "../support/deadline.ts";

const STUB = new URL("../support/recycling_worker.ts", import.meta.url);

Deno.test(
  "pool: a worker that asks to be recycled is replaced, never sent another request",
  bounded(60_000, async (deadline) => {
    const pool = await WorkerPool.start({
      size: 1,
      timeoutMs: 10_000,
      config: { database: ":memory:", write: false, label: "x" },
      spawn: () =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "--quiet", "--no-prompt", STUB.href],
          stdin: "piped",
          stdout: "piped",
          stderr: "null",
        }).spawn(),
    });
    const killed: string[] = [];
    pool.observe((e) => e.type === "killed" && killed.push(e.reason));
    try {
      const pids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const answer = await deadline.within(`request ${i} answered`, pool.run({ op: "tables" }));
        assert.equal(answer.head.status, 200, `request ${i} answered by a live worker`);
        pids.push(JSON.parse(new TextDecoder().decode(answer.body as Uint8Array)).pid);
      }
      assert.equal(new Set(pids).size, 3, "each request had a fresh worker");
      assert.deepEqual(killed, ["recycled", "recycled", "recycled"]);
    } finally {
      await pool.close();
    }
  }),
);
