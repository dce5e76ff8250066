import assert from "node:assert/strict";
import { Deadlines } from "../../src/time/deadlines.ts";
import { ManualClock } from "../support/manual_clock.ts";

/** Resolves with the order in which `count` deadlines fired. */
function recorder(count: number) {
  const fired: string[] = [];
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  const fire = (name: string) => () => {
    fired.push(name);
    if (fired.length === count) done();
  };
  return { fired, all, fire };
}

Deno.test("deadlines: fire in time order whatever the order they were added in", async () => {
  const d = new Deadlines();
  const now = performance.now();
  const r = recorder(4);
  d.add(now + 30, r.fire("c"));
  d.add(now + 10, r.fire("a"));
  d.add(now + 40, r.fire("d"));
  d.add(now + 20, r.fire("b"));
  assert.equal(d.size, 4);
  await r.all;
  assert.deepEqual(r.fired, ["a", "b", "c", "d"]);
  assert.equal(d.size, 0);
  d.close();
});

Deno.test("deadlines: a cancelled one never fires, the head included, and the rest still do", async () => {
  const d = new Deadlines();
  const now = performance.now();
  const r = recorder(2);
  const head = d.add(now + 5, r.fire("head"));
  const middle = d.add(now + 10, r.fire("middle"));
  d.add(now + 15, r.fire("x"));
  const tail = d.add(now + 20, r.fire("tail"));
  d.add(now + 25, r.fire("y"));
  d.cancel(head);
  d.cancel(middle);
  d.cancel(tail);
  d.cancel(tail); // twice: harmless
  assert.equal(d.size, 2);
  await r.all;
  assert.deepEqual(r.fired, ["x", "y"]);
  d.close();
});

Deno.test("deadlines: one added before the armed one fires first", async () => {
  const d = new Deadlines();
  const now = performance.now();
  const r = recorder(2);
  d.add(now + 60_000, r.fire("late"));
  d.add(now, r.fire("soon"));
  await new Promise<void>((resolve) => d.add(now + 1, resolve));
  // Had the timer stayed armed for the late one, neither would have fired yet.
  assert.deepEqual(r.fired, ["soon"]);
  assert.equal(d.size, 1);
  d.close();
});

Deno.test("deadlines: a deadline added while others fire is kept; close() disarms the timer", async () => {
  const d = new Deadlines();
  const now = performance.now();
  const r = recorder(3);
  d.add(now, () => {
    r.fire("first")();
    d.add(performance.now() + 5, r.fire("added while firing"));
  });
  d.add(now + 1, r.fire("second"));
  await r.all;
  assert.deepEqual(r.fired, ["first", "second", "added while firing"]);
  // A deadline left behind is never run after close(); the test's timer sanitizer checks that
  // no timer is left armed.
  d.add(performance.now() + 60_000, () => assert.fail("fired after close"));
  d.close();
});

Deno.test("deadlines: on a test's clock, each fires at its time and not a millisecond before", async () => {
  const clock = new ManualClock();
  const d = new Deadlines(clock);
  const fired: string[] = [];
  const t0 = clock.monotonic();
  d.add(t0 + 100, () => fired.push("a"));
  d.add(t0 + 101, () => fired.push("b"));
  await clock.advance(99);
  assert.deepEqual(fired, []);
  await clock.advance(1);
  assert.deepEqual(fired, ["a"]);
  await clock.advance(1);
  assert.deepEqual(fired, ["a", "b"]);
  assert.equal(clock.pending, 0);
});

Deno.test("deadlines: by default the timer is cleared when the last deadline goes", () => {
  const clock = new ManualClock();
  const d = new Deadlines(clock);
  const a = d.add(clock.monotonic() + 50, () => assert.fail("cancelled"));
  const b = d.add(clock.monotonic() + 60, () => assert.fail("cancelled"));
  assert.equal(clock.pending, 1);
  d.cancel(a);
  assert.equal(clock.pending, 1, "one left: still armed");
  d.cancel(b);
  assert.equal(clock.pending, 0, "nothing left: nothing holds the process open");
});

Deno.test("deadlines: keepArmed leaves the timer to wake once, and it re-arms for what came since", async () => {
  const clock = new ManualClock();
  const d = new Deadlines(clock, { keepArmed: true });
  const t0 = clock.monotonic();
  d.cancel(d.add(t0 + 10, () => assert.fail("cancelled")));
  assert.equal(clock.pending, 1, "no clearTimeout when the last one goes");
  const fired: number[] = [];
  // Later than the armed timer: no new timer; the armed one wakes and re-arms for it.
  d.add(t0 + 20, () => fired.push(clock.monotonic() - t0));
  assert.equal(clock.pending, 1);
  await clock.advance(10);
  assert.deepEqual(fired, []);
  assert.equal(clock.pending, 1);
  await clock.advance(10);
  assert.deepEqual(fired, [20]);
  // Nothing left when it fired: it stays idle.
  assert.equal(clock.pending, 0);
  d.close();
});
