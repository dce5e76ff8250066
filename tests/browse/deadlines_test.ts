import assert from "node:assert/strict";
import { Deadlines } from "../../src/browse/deadlines.ts";

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
