import assert from "node:assert/strict";
import { makeFixtureDb } from "../support/browse_fixtures.ts";
import { bounded } from "../support/deadline.ts";
import { nextEvent, postJson, startPoolServer } from "../support/pool_server.ts";

Deno.test(
  "memory: an answer over the pool's byte cap is refused, not buffered",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const s = await startPoolServer(path, { maxAnswerBytes: 1024 * 1024 });
    try {
      // Many small frames past the cap, then one frame past it on its own.
      for (
        const sql of [
          "SELECT printf('%.*c', 100000, 'x') FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 50) SELECT value FROM s)",
          "SELECT printf('%.*c', 3000000, 'x')",
        ]
      ) {
        const killed = nextEvent(s.pool, "killed");
        const res = await deadline.within("the too-large answer's 500", postJson(s, sql));
        assert.equal(res.status, 500);
        assert.match(String(res.body.error), /larger than 1 MiB/);
        assert.doesNotMatch(String(res.body.error), /\//, "no path in the error");
        const kill = await deadline.within("the worker killed for a too-large answer", killed);
        assert.equal(kill.reason, "too-large");
      }
      // Under the cap all is as before.
      const ok = await postJson(s, "SELECT length(printf('%.*c', 100000, 'x'))");
      assert.deepEqual(ok.body.rows, [[100000]]);
    } finally {
      await s.close();
    }
  }),
);
