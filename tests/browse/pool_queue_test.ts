import assert from "node:assert/strict";
import type { WorkerPool } from "../../src/browse/pool/pool.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";
import { bounded } from "../support/deadline.ts";
import { events, nextEvent, startPoolServer } from "../support/pool_server.ts";
import { sendQuery } from "../support/raw_http.ts";

const ENDLESS =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c";
/** A download that fills every buffer at once: its client reads nothing, so it holds a worker. */
const FLOOD =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT printf('%.*c', 100000, 'x') FROM c";

/** Occupies one worker with a download nobody reads (its time limit paused meanwhile). */
async function holdWorker(port: number, pool: WorkerPool) {
  const started = nextEvent(pool, "run");
  const conn = await sendQuery(port, FLOOD, { format: "csv" });
  const { pid } = await started;
  return { conn, pid };
}

function post(url: string, query: string, signal?: AbortSignal) {
  return fetch(new URL("/api/query", url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query }),
    signal,
  });
}

Deno.test(
  "queue: with every worker busy and the queue full, a request answers 503 with Retry-After",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const s = await startPoolServer(path, {
      timeoutMs: 60_000,
      stallMs: 60_000,
      maxQueue: 2,
      spares: 0,
      // Downloads hold both workers here (by default one is kept for the rest).
      maxDownloads: 2,
    });
    try {
      const held = [await holdWorker(s.port, s.pool), await holdWorker(s.port, s.pool)];
      const queuedTwo = events(s.pool, "queued", 2);
      const waiting = [post(s.url, "SELECT 1"), post(s.url, "SELECT 2")];
      await queuedTwo;
      assert.equal(s.pool.queued, 2);
      const refused = await post(s.url, "SELECT 3");
      assert.equal(refused.status, 503);
      const retry = Number(refused.headers.get("retry-after"));
      assert.ok(Number.isInteger(retry) && retry >= 1, `Retry-After: ${retry}`);
      const body = await refused.json();
      assert.match(body.error, /busy/);
      // The queued requests were kept: once the holders hang up, both are answered.
      for (const h of held) h.conn.close();
      const answers = await deadline.within(
        "the queued requests answered once the holders hung up",
        Promise.all(waiting),
      );
      assert.deepEqual(answers.map((r) => r.status), [200, 200]);
      assert.deepEqual((await answers[0].json()).rows, [[1]]);
      assert.deepEqual((await answers[1].json()).rows, [[2]]);
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "queue: a request still waiting at its deadline answers 504 and never reaches a worker",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const s = await startPoolServer(path, {
      timeoutMs: 1500,
      stallMs: 60_000,
      spares: 0,
      maxDownloads: 2,
    });
    try {
      const held = [await holdWorker(s.port, s.pool), await holdWorker(s.port, s.pool)];
      let runs = 0;
      s.pool.observe((e) => e.type === "run" && runs++);
      const dropped = nextEvent(s.pool, "dropped");
      const res = await deadline.within(
        "the queued request's 504 at its deadline",
        post(s.url, "SELECT 1"),
      );
      assert.equal(res.status, 504);
      assert.match((await res.json()).error, /time limit/);
      assert.deepEqual(await deadline.within("the expired request dropped", dropped), {
        type: "dropped",
        reason: "timeout",
      });
      assert.equal(runs, 0, "the expired request was never given a worker");
      // The holders' downloads were not timed out meanwhile: waiting on their clients is not
      // query time.
      assert.deepEqual(s.pool.pids.filter((p) => held.some((h) => h.pid === p)).length, 2);
      const kills = events(s.pool, "killed", 2);
      for (const h of held) h.conn.close();
      const killed = await deadline.within("the holders' workers killed on hang-up", kills);
      assert.deepEqual(killed.map((k) => k.reason), ["cancelled", "cancelled"]);
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "cancel: a queued request whose client hangs up is dropped without running",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const s = await startPoolServer(path, {
      timeoutMs: 60_000,
      stallMs: 60_000,
      spares: 0,
      maxDownloads: 2,
    });
    try {
      const held = [await holdWorker(s.port, s.pool), await holdWorker(s.port, s.pool)];
      let runs = 0;
      s.pool.observe((e) => e.type === "run" && runs++);
      const queued = nextEvent(s.pool, "queued");
      const conn = await sendQuery(s.port, "SELECT 1");
      await queued;
      assert.equal(s.pool.queued, 1);
      const dropped = nextEvent(s.pool, "dropped");
      conn.close();
      assert.deepEqual(await deadline.within("the queued request dropped on hang-up", dropped), {
        type: "dropped",
        reason: "cancelled",
      });
      assert.equal(s.pool.queued, 0);
      assert.equal(runs, 0);
      // Downloads whose clients hang up are cancelled too: their workers are killed.
      const kills = events(s.pool, "killed", 2);
      for (const h of held) h.conn.close();
      const killed = await deadline.within("the downloads' workers killed on hang-up", kills);
      assert.deepEqual(killed.map((k) => k.reason), ["cancelled", "cancelled"]);
      assert.deepEqual(killed.map((k) => k.pid).sort(), held.map((h) => h.pid).sort());
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "cancel: a running query whose client hangs up has its worker killed and replaced",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    // A limit far beyond the test: only the cancellation can stop the query.
    const s = await startPoolServer(path, { timeoutMs: 600_000 });
    try {
      const started = nextEvent(s.pool, "run");
      const conn = await sendQuery(s.port, ENDLESS);
      const { pid } = await started;
      const killed = nextEvent(s.pool, "killed");
      conn.close();
      assert.deepEqual(await deadline.within("the worker killed on hang-up", killed), {
        type: "killed",
        pid,
        reason: "cancelled",
      });
      const exit = await deadline.within("the killed worker's exit", s.pool.exitOf(pid));
      assert.equal(exit?.signal, "SIGKILL");
      assert.ok(!s.pool.pids.includes(pid));
      // The same through fetch's own abort.
      const ac = new AbortController();
      const running = nextEvent(s.pool, "run");
      const pending = post(s.url, ENDLESS, ac.signal).catch((e) => e);
      const second = await running;
      const killedAgain = nextEvent(s.pool, "killed");
      ac.abort();
      await deadline.within("the aborted fetch's end", pending);
      assert.deepEqual(await deadline.within("the worker killed on abort", killedAgain), {
        type: "killed",
        pid: second.pid,
        reason: "cancelled",
      });
      const after = await post(s.url, "SELECT name FROM items WHERE id = 1");
      assert.deepEqual((await after.json()).rows, [["apple"]]);
    } finally {
      await s.close();
    }
  }),
);

Deno.test("cancel: a query whose client hangs up just after it started may finish and keep its worker", async () => {
  const path = await makeFixtureDb();
  // A grace longer than the test: the cheap query's own end comes first, never the kill.
  const s = await startPoolServer(path, { timeoutMs: 600_000, cancelGraceMs: 600_000 });
  const kills: unknown[] = [];
  const stop = s.pool.observe((e) => e.type === "killed" && kills.push(e));
  try {
    const ac = new AbortController();
    const req = { op: "query", sql: "SELECT 1", format: "json", maxRows: 10 } as const;
    const running = nextEvent(s.pool, "run");
    const answer = s.pool.run(req, false, ac.signal);
    const { pid } = await running;
    // Gone while its query runs (the run event comes before the job is under way).
    await Promise.resolve();
    ac.abort();
    const a = await answer;
    assert.equal(a.head.status, 200);
    // Not recorded as a call someone received.
    assert.equal(await a.done, null);
    assert.deepEqual(kills, []);
    assert.ok(s.pool.pids.includes(pid));
    // The same worker serves the next request.
    const next = nextEvent(s.pool, "run");
    await (await s.pool.run({ ...req, sql: "SELECT 2" })).done;
    assert.equal((await next).pid, pid);
    assert.deepEqual(kills, []);
  } finally {
    stop();
    await s.close();
  }
});
