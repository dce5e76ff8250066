import assert from "node:assert/strict";
import { processDeadlines } from "../../src/feeds/fetch.ts";
import { readFeed } from "../../src/feeds/read.ts";
import { Deadlines } from "../../src/time/deadlines.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { startFeedServer } from "../support/feed_server.ts";

Deno.test("fetch deadlines run on the clock of the Deadlines the caller brings", async () => {
  const server = startFeedServer();
  try {
    const clock = new ManualClock();
    const deadlines = new Deadlines(clock);
    let settled = false;
    const read = readFeed({
      urls: [`${server.base}/hang`],
      type: "rss",
      timeoutMs: 30_000,
      deadlines,
    }).finally(() => (settled = true));
    // Registered as the request starts, with its own timer, not the process's.
    assert.equal(deadlines.size, 1);
    assert.equal(processDeadlines.size, 0);
    assert.equal(clock.pending, 1);
    await clock.advance(29_999);
    assert.equal(settled, false);
    await clock.advance(1);
    await assert.rejects(read, /hang: timed out after 30000 ms$/);
    assert.equal(deadlines.size, 0);
    assert.equal(clock.pending, 0, "no timer left once nothing is in flight");
  } finally {
    await server.close();
  }
});
