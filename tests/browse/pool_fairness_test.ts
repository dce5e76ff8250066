import assert from "node:assert/strict";
import type { PoolEvent } from "../../src/browse/pool/pool.ts";
import { makeFixtureDb, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";
import { bounded } from "../support/deadline.ts";
import { events, nextEvent, postJson, startPoolServer } from "../support/pool_server.ts";
import { sendQuery } from "../support/raw_http.ts";

const ENDLESS =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c";
const POINT = "SELECT name FROM items WHERE id = 1";

Deno.test(
  "fairness: runaway queries whose clients hang up are killed and a point query answers",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    // A limit no test waits for: the point query can only succeed if the runaways were cancelled.
    const b = await startTestBrowser(path, { timeoutMs: 60_000 });
    try {
      const ends: PoolEvent[] = [];
      b.pool.observe((e) => {
        if (e.type === "killed" || e.type === "dropped") ends.push(e);
      });
      const running = events(b.pool, "run", 2);
      const queued = events(b.pool, "queued", 4);
      const conns = [];
      for (let i = 0; i < 6; i++) conns.push(await sendQuery(b.port, ENDLESS));
      const runaways = (await running).map((r) => r.pid);
      await queued;
      const allEnded = new Promise<void>((resolve) => {
        const stop = b.pool.observe(() => {
          if (ends.length < 6) return;
          stop();
          resolve();
        });
      });
      for (const c of conns) c.close();
      await deadline.within("all six runaways cancelled (two killed, four dropped)", allEnded);
      // Every one of the six was cancelled: the two running had their workers killed, the four
      // queued never ran.
      assert.ok(ends.every((e) => "reason" in e && e.reason === "cancelled"), JSON.stringify(ends));
      const killed = ends.filter((e) => e.type === "killed").map((e) => "pid" in e && e.pid);
      assert.deepEqual(killed.sort(), [...runaways].sort());
      for (const pid of runaways) {
        const exit = await deadline.within(`runaway worker ${pid}'s exit`, b.pool.exitOf(pid));
        assert.equal(exit?.signal, "SIGKILL");
        assert.ok(!b.pool.pids.includes(pid));
      }
      const point = await postQuery(b, POINT);
      assert.equal(point.status, 200);
      assert.deepEqual((point.body as { rows: unknown }).rows, [["apple"]]);
    } finally {
      await b.close();
    }
  }),
);

Deno.test(
  "fairness: a point query is answered while every worker runs a runaway query",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const b = await startTestBrowser(path, { timeoutMs: 60_000 });
    try {
      const running = events(b.pool, "run", 2);
      const conns = [await sendQuery(b.port, ENDLESS), await sendQuery(b.port, ENDLESS)];
      const runaways = (await running).map((r) => r.pid);
      const spare = nextEvent(b.pool, "spare");
      const point = await postQuery(b, POINT);
      assert.equal(point.status, 200);
      assert.deepEqual((point.body as { rows: unknown }).rows, [["apple"]]);
      // It did not wait for a runaway to end: both still run; a spare worker served it.
      await spare;
      for (const pid of runaways) assert.ok(b.pool.pids.includes(pid));
      const kills = events(b.pool, "killed", 2);
      for (const c of conns) c.close();
      const killed = await deadline.within("both runaways' workers killed on hang-up", kills);
      assert.deepEqual(killed.map((k) => k.reason), ["cancelled", "cancelled"]);
    } finally {
      await b.close();
    }
  }),
);

Deno.test(
  "fairness: a query text that ran past the limit waits behind fresh requests",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const s = await startPoolServer(path, {
      timeoutMs: 2000,
      stallMs: 60_000,
      spares: 0,
      maxDownloads: 2,
    });
    try {
      const first = await deadline.within("the runaway's 504 at the limit", postJson(s, ENDLESS));
      assert.equal(first.status, 504);
      // Both workers held by downloads nobody reads; then the runaway text, then a point query.
      const held = events(s.pool, "run", 2);
      const holders = [
        await sendQuery(
          s.port,
          "SELECT printf('%.*c', 100000, 'x') FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 1000) SELECT value FROM s)",
          {
            format: "csv",
          },
        ),
        await sendQuery(
          s.port,
          "SELECT printf('%.*c', 100000, 'y') FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 1000) SELECT value FROM s)",
          {
            format: "csv",
          },
        ),
      ];
      await held;
      const queued = events(s.pool, "queued", 2);
      const runaway = postJson(s, ENDLESS);
      const point = postJson(s, POINT);
      await queued;
      // One worker comes free: it goes to the point query though the runaway came first.
      const next = nextEvent(s.pool, "run");
      holders[0].close();
      assert.equal((await next).suspect, false);
      const answered = await point;
      assert.deepEqual(answered.body.rows, [["apple"]]);
      const late = await deadline.within("the queued runaway's 504 at the limit", runaway);
      assert.equal(late.status, 504);
      const killed = nextEvent(s.pool, "killed", (k) => k.reason === "cancelled");
      holders[1].close();
      await deadline.within("the unread download's worker killed on hang-up", killed);
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "fairness: a runaway query on the spare worker yields it to a cheap query",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const b = await startTestBrowser(path, { timeoutMs: 60_000 });
    try {
      const running = events(b.pool, "run", 3);
      const spare = nextEvent(b.pool, "spare");
      const conns = [];
      // Three runaways never seen before: two on the workers, the third gets the spare.
      for (const n of [1, 2, 3]) conns.push(await sendQuery(b.port, `${ENDLESS} -- ${n}`));
      const runs = await running;
      const sparePid = (await spare).pid;
      assert.equal(runs[2].pid, sparePid);
      // A cheap query: the third runaway is taken off the spare and queued again.
      const preempted = nextEvent(b.pool, "killed");
      const point = await postQuery(b, POINT);
      assert.equal(point.status, 200);
      assert.deepEqual((point.body as { rows: unknown }).rows, [["apple"]]);
      assert.deepEqual(await deadline.within("the spare's runaway preempted", preempted), {
        type: "killed",
        pid: sparePid,
        reason: "preempted",
      });
      assert.equal(b.pool.queued, 1, "the preempted runaway waits for a worker again");
      // It still belongs to its client: hanging up drops it; the two running are killed.
      const ends = events(b.pool, "killed", 2);
      const dropped = nextEvent(b.pool, "dropped");
      for (const c of conns) c.close();
      const killed = await deadline.within("both running runaways killed on hang-up", ends);
      assert.deepEqual(killed.map((k) => k.reason), ["cancelled", "cancelled"]);
      const drop = await deadline.within("the preempted runaway dropped on hang-up", dropped);
      assert.equal(drop.reason, "cancelled");
    } finally {
      await b.close();
    }
  }),
);
