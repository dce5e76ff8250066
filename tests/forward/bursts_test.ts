import assert from "node:assert/strict";
import { burstLogger } from "../../src/forward/bursts.ts";
import { createLogger } from "../../src/log/logger.ts";
import { ManualClock } from "../support/manual_clock.ts";

function harness() {
  const lines: string[] = [];
  const clock = new ManualClock();
  const inner = createLogger({
    format: "text",
    color: false,
    level: "debug",
    write: (l) => lines.push(l),
    now: () => new Date(clock.now()),
  });
  return { lines, clock, logger: burstLogger(inner, clock, 10_000) };
}

Deno.test("bursts: 2,391 identical warnings are the first line and one line with the count", async () => {
  const { lines, clock, logger } = harness();
  for (let i = 0; i < 2391; i++) logger.warn("previous run still going", { feed: `feed${i}` });
  assert.equal(lines.length, 1);
  assert.match(lines[0], /level=warn msg="previous run still going" feed=feed0$/);
  await clock.advance(10_000);
  assert.equal(lines.length, 2);
  assert.match(
    lines[1],
    /level=warn msg="previous run still going" repeated=2390 feeds=feed1,feed2,.*,feed10,… within_s=10$/,
  );
  // The window is over: the next one is a new burst, logged whole at once.
  logger.warn("previous run still going", { feed: "feed9999" });
  assert.equal(lines.length, 3);
  assert.match(lines[2], /feed=feed9999$/);
  await clock.advance(10_000);
  assert.equal(lines.length, 3, "nothing repeated: no summary");
});

Deno.test("bursts: other messages, other levels and errors are not held back", () => {
  const { lines, logger } = harness();
  logger.warn("a", { feed: "x" });
  logger.warn("b", { feed: "x" });
  logger.error("feed failed", { feed: "x" });
  logger.error("feed failed", { feed: "y" });
  logger.info("i");
  logger.info("i");
  logger.debug("d");
  assert.equal(lines.length, 7);
});

Deno.test("bursts: flush writes what is held and leaves no timer", () => {
  const { lines, clock, logger } = harness();
  logger.warn("down", { chat: "@c" });
  logger.warn("down", { chat: "@c" });
  logger.flush();
  assert.equal(lines.length, 2);
  assert.match(lines[1], /msg=down repeated=1 within_s=10$/);
  assert.equal(clock.pending, 0);
});
