import assert from "node:assert/strict";
import { sleep } from "../../src/time/clock.ts";
import { ManualClock } from "../support/manual_clock.ts";

Deno.test("manual clock: timers run in time order at their own time; a jump runs none", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const ran: string[] = [];
  clock.setTimeout(() => ran.push(`b@${clock.monotonic()}`), 200);
  clock.setTimeout(() => {
    ran.push(`a@${clock.monotonic()}`);
    // Due within the same advance: runs in it, at its time.
    clock.setTimeout(() => ran.push(`c@${clock.monotonic()}`), 50);
  }, 100);
  const cleared = clock.setTimeout(() => ran.push("never"), 10);
  clock.clearTimeout(cleared);
  clock.jump(3_600_000);
  assert.deepEqual(ran, []);
  await clock.advance(199);
  assert.deepEqual(ran, ["a@100", "c@150"]);
  assert.equal(clock.now(), Date.UTC(2026, 0, 1) + 3_600_000 + 199);
  await clock.advance(1);
  assert.deepEqual(ran, ["a@100", "c@150", "b@200"]);
  assert.equal(clock.pending, 0);
});

Deno.test("sleep ends when its time comes, or at once with the signal's reason", async () => {
  const clock = new ManualClock();
  let woke = false;
  const nap = sleep(clock, 1000).then(() => (woke = true));
  await clock.advance(999);
  assert.equal(woke, false);
  await clock.advance(1);
  await nap;
  assert.equal(woke, true);

  const controller = new AbortController();
  const stopped = sleep(clock, 60_000, controller.signal);
  controller.abort(new Error("SIGTERM"));
  await assert.rejects(stopped, /SIGTERM/);
  assert.equal(clock.pending, 0, "the timer is cleared");
  await assert.rejects(sleep(clock, 5, controller.signal), /SIGTERM/);
});
