/**
 * The pool's sharing between clients (fair.ts) with real worker processes: a client's
 * runaways hold every worker and the queue, and another client's query gets through.
 */
import assert from "node:assert/strict";
import { type Answer, QueueFullError, WorkerPool } from "../../src/browse/pool/pool.ts";
import type { WorkerRequest } from "../../src/browse/pool/protocol.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";
import { bounded } from "../support/deadline.ts";
import { events, nextEvent } from "../support/pool_server.ts";

const ENDLESS =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c";
const query = (sql: string): WorkerRequest => ({
  op: "query",
  sql,
  format: "json",
  maxRows: 100,
  readOnly: true,
});
const rows = (a: Answer) => JSON.parse(new TextDecoder().decode(a.body as Uint8Array)).rows;

/** A pool of two workers and no spare, with a limit no test waits for. */
async function startPool(maxQueue = 8): Promise<WorkerPool> {
  return await WorkerPool.start({
    size: 2,
    timeoutMs: 60_000,
    spares: 0,
    maxQueue,
    config: { database: await makeFixtureDb(), write: false, label: "fixture.db" },
  });
}

Deno.test(
  "pool clients: with no spare, a client holding every worker hands one over: its youngest runaway is taken off and runs again after",
  bounded(60_000, async (deadline) => {
    const pool = await startPool();
    const hangUp = new AbortController();
    try {
      const running = events(pool, "run", 2);
      const a = [1, 2].map((n) =>
        pool.run(query(`${ENDLESS} -- ${n}`), false, hangUp.signal, "A").catch((e) => e)
      );
      const pids = (await deadline.within("A's two runaways running", running)).map((r) => r.pid);
      const killed = nextEvent(pool, "killed");
      const served = nextEvent(pool, "run", (r) => r.client === "B");
      const rerun = nextEvent(pool, "run", (r) => r.client === "A");
      const b = await deadline.within(
        "B's answer",
        pool.run(query("SELECT 1"), false, undefined, "B"),
      );
      assert.deepEqual(rows(b), [[1]]);
      const k = await killed;
      assert.equal(k.reason, "preempted");
      assert.ok(pids.includes(k.pid), `${k.pid} is not one of A's ${pids}`);
      assert.equal((await served).suspect, false);
      // A's runaway waited for a worker again and has it back once B is done (as a suspect:
      // it goes behind A's fresh requests); the other ran on all along.
      assert.equal((await deadline.within("A's runaway running again", rerun)).suspect, true);
      assert.ok(pool.pids.includes(pids.find((p) => p !== k.pid)!));
      hangUp.abort();
      await deadline.within("A's runaways ended on hang-up", Promise.all(a));
    } finally {
      hangUp.abort();
      await pool.close();
    }
  }),
);

Deno.test(
  "pool clients: with the queue full of one client's requests, another's is queued in place of that client's newest, which gets 503",
  bounded(60_000, async (deadline) => {
    const pool = await startPool(2);
    const hangUp = new AbortController();
    try {
      const running = events(pool, "run", 2);
      const queued = events(pool, "queued", 2);
      const a = [1, 2, 3, 4].map((n) =>
        pool.run(query(`${ENDLESS} -- ${n}`), false, hangUp.signal, "A").catch((e) => e)
      );
      await deadline.within("A's runaways running and queued", Promise.all([running, queued]));
      // A's fifth: A has the most waiting, so A is refused.
      await assert.rejects(
        pool.run(query(`${ENDLESS} -- 5`), false, hangUp.signal, "A"),
        QueueFullError,
      );
      const dropped = nextEvent(pool, "dropped");
      const b = pool.run(query("SELECT 1"), false, undefined, "B");
      assert.equal((await dropped).reason, "full");
      const refused = await deadline.within("A's newest refused", a[3]);
      assert.ok(refused instanceof QueueFullError, String(refused));
      assert.ok(refused.retryAfterSeconds >= 1);
      assert.deepEqual(rows(await deadline.within("B's answer", b)), [[1]]);
      hangUp.abort();
      await deadline.within("A's runaways ended on hang-up", Promise.all(a));
    } finally {
      hangUp.abort();
      await pool.close();
    }
  }),
);
