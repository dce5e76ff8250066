import assert from "node:assert/strict";
import { api, makeFixtureDb, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";
import { bounded } from "../support/deadline.ts";

const ENDLESS =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c";

function cpuTicks(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

Deno.test(
  "time limit: an endless query answers 504, its worker dies, others are served meanwhile",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const b = await startTestBrowser(path, { timeoutMs: 700 });
    try {
      const pidsBefore = b.pool.pids;
      assert.equal(pidsBefore.length, 2);
      const runaway = postQuery(b, ENDLESS);
      // While the endless query holds one worker, other requests are answered.
      for (let i = 0; i < 5; i++) {
        const r = await api(b, "/api/tables");
        assert.equal(r.status, 200);
      }
      const quick = await postQuery(b, "SELECT name FROM items WHERE id = 1");
      assert.deepEqual((quick.body as { rows: unknown }).rows, [["apple"]]);
      const slow = await deadline.within("the endless query's 504 at its 700 ms limit", runaway);
      assert.equal(slow.status, 504);
      assert.match((slow.body as { error: string }).error, /time limit/);
      // The worker that ran it is gone (CPU freed), a replacement takes its place.
      const killed = pidsBefore.filter((pid) => !b.pool.pids.includes(pid));
      assert.equal(killed.length, 1);
      const exit = await deadline.within("the timed-out worker's exit", b.pool.exitOf(killed[0]));
      assert.equal(exit?.signal, "SIGKILL");
      assert.equal(cpuTicks(killed[0]), null, "the killed worker's process no longer exists");
      const again = await postQuery(b, "SELECT 1");
      assert.equal(again.status, 200);
      // A failed query is not in the history.
      const history = (await api(b, "/api/history")).body as { query: string }[];
      assert.ok(!history.some((h) => h.query === ENDLESS));
    } finally {
      await b.close();
    }
  }),
);

Deno.test(
  "time limit: with every worker stuck, a queued request's wait counts against its limit",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const b = await startTestBrowser(path, { timeoutMs: 500 });
    try {
      const seen: string[] = [];
      let bothRunning: () => void = () => {};
      const running = new Promise<void>((r) => (bothRunning = r));
      let runs = 0;
      b.pool.observe((e) => {
        if (e.type === "dropped") seen.push(`dropped ${e.reason}`);
        if (e.type === "spare") seen.push("spare");
        if (e.type === "queued") seen.push("queued");
        if (e.type === "run") {
          seen.push("run");
          if (++runs === 2) bothRunning();
        }
      });
      const stuck = [postQuery(b, ENDLESS), postQuery(b, ENDLESS)];
      // Only then the third request: sent at once, on a loaded machine it reached the pool
      // first, took a worker and was answered 200 with no spare (the test failed).
      await deadline.within("both endless queries running", running);
      const queued = await deadline.within("the queued request's answer", api(b, "/api/info"));
      assert.deepEqual(seen.slice(0, 3), ["run", "run", "queued"], "it waited for a worker");
      const ends = await deadline.within("both endless queries' 504s", Promise.all(stuck));
      const statuses = ends.map((r) => r.status);
      assert.deepEqual(statuses, [504, 504]);
      // Queued behind two runaways, it either got a spare worker and was answered, or it was
      // answered 504 at its own deadline (dropped from the queue, or, on a loaded machine, on a
      // spare that started too late): its time in the queue counted against its limit.
      if (seen.includes("dropped timeout") || queued.status === 504) {
        assert.equal(queued.status, 504);
        assert.match((queued.body as { error: string }).error, /time limit/);
      } else {
        assert.ok(seen.includes("spare"));
        assert.equal(queued.status, 200);
      }
      // Once the runaways are killed, requests are served again: by their replacements, which
      // on a loaded machine may take longer to start than the 500 ms limit (a wait that counts
      // against it too: 504), so a few tries.
      const after = await deadline.within(
        "an answer after the kills",
        (async () => {
          for (;;) {
            const r = await postQuery(b, "SELECT 2");
            if (r.status === 200) return r;
            assert.equal(r.status, 504, r.text);
            assert.match(r.text, /time limit/);
          }
        })(),
      );
      assert.deepEqual((after.body as { rows: unknown }).rows, [[2]]);
    } finally {
      await b.close();
    }
  }),
);
