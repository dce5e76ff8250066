/**
 * The fetch-slot rule (src/forward/fetch_slots.ts) on its own, then the slots it hands out on
 * a clock the test moves: 24 feeds of a slow server listed before 4 of a healthy one.
 */
import assert from "node:assert/strict";
import {
  feedOrigin,
  FetchSlots,
  heldSlot,
  mayStart,
  nextOrigin,
  shareOf,
  type Slot,
  type SlotsInUse,
} from "../../src/forward/fetch_slots.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { deferred } from "../support/forward_stubs.ts";

const SLOW = "http://slow.example";
const FAST = "http://fast.example";

/** A slot for `origin`, once the rule gives it one. */
function acquire(slots: FetchSlots, origin: string): Promise<Slot> {
  return new Promise((resolve) => slots.take(origin, resolve));
}

/** `task` under a slot for `origin`, as a feed's run holds one: released when it ends. */
function runUnder<T>(slots: FetchSlots, origin: string, task: () => Promise<T>): Promise<T> {
  return acquire(slots, origin).then((slot) => heldSlot(slot).run(task));
}

function inUse(
  byOrigin: Record<string, number>,
  slow: string[] = [],
  concurrency = 8,
  fast: string[] = [],
): SlotsInUse {
  const map = new Map(Object.entries(byOrigin));
  let n = 0;
  for (const v of map.values()) n += v;
  return { concurrency, inUse: n, byOrigin: map, slow: new Set(slow), fast: new Set(fast) };
}

Deno.test("fetch slots: an origin's share is half the slots, rounded up, at least one", () => {
  assert.equal(shareOf(8), 4);
  assert.equal(shareOf(7), 4);
  assert.equal(shareOf(2), 1);
  assert.equal(shareOf(1), 1);
});

Deno.test("fetch slots: an origin at its share waits while slots are free; others start", () => {
  const s = inUse({ [SLOW]: 4 });
  assert.equal(mayStart(SLOW, s), false);
  assert.equal(mayStart(FAST, s), true);
  assert.equal(mayStart(SLOW, inUse({ [SLOW]: 3 })), true);
  // Every slot in use: nobody.
  assert.equal(mayStart(FAST, inUse({ [SLOW]: 4, [FAST]: 4 })), false);
});

Deno.test("fetch slots: slow origins share one half between them; healthy ones keep the other", () => {
  const slow2 = "http://slow2.example";
  const s = inUse({ [SLOW]: 2, [slow2]: 2 }, [SLOW, slow2]);
  assert.equal(mayStart(SLOW, s), false);
  assert.equal(
    mayStart("http://slow3.example", {
      ...s,
      slow: new Set([SLOW, slow2, "http://slow3.example"]),
      fast: new Set(),
    }),
    false,
  );
  assert.equal(mayStart(FAST, s), true);
  // An origin not (or no longer) slow counts only against its own share.
  assert.equal(mayStart(SLOW, inUse({ [SLOW]: 2, [slow2]: 2 }, [slow2])), true);
});

Deno.test("fetch slots: the first origin in turn that may start goes", () => {
  assert.equal(nextOrigin([SLOW, FAST], inUse({})), SLOW);
  assert.equal(nextOrigin([SLOW, FAST], inUse({ [SLOW]: 4 })), FAST);
  assert.equal(nextOrigin([SLOW, FAST], inUse({ [SLOW]: 4, [FAST]: 4 })), null);
  assert.equal(nextOrigin([SLOW], inUse({ [SLOW]: 4 })), null);
});

Deno.test("fetch slots: a feed's origin is its first URL's scheme, host and port", () => {
  assert.equal(feedOrigin("https://a.example:8443/x.xml?y"), "https://a.example:8443");
  assert.equal(feedOrigin("http://A.example/feed"), "http://a.example");
  assert.equal(feedOrigin("HTTPS://a.example?x=1#y"), "https://a.example");
  // User info (a password) is not part of the key; the feeds of one server share it.
  assert.equal(feedOrigin("https://user:secret@a.example/feed"), "https://a.example");
  assert.equal(feedOrigin("https://a.example/other"), "https://a.example");
  assert.equal(feedOrigin("http://[::1]:8080/f"), "http://[::1]:8080");
  // Not a URL: the text is its own key (the fetch says what is wrong with it).
  assert.equal(feedOrigin("not a url"), "not a url");
  assert.equal(feedOrigin(undefined), "");
});

Deno.test("fetch slots: 24 slow feeds listed first cannot hold back 4 healthy ones", async () => {
  const clock = new ManualClock();
  const slots = new FetchSlots(8, clock, 15_000);
  const started: string[] = [];
  const gates = Array.from({ length: 24 }, () => deferred());
  const runs: Promise<void>[] = [];
  for (let i = 0; i < 24; i++) {
    runs.push(runUnder(slots, SLOW, async () => {
      started.push(`slow${i}`);
      await gates[i].promise;
    }));
  }
  for (let i = 0; i < 4; i++) {
    runs.push(runUnder(slots, FAST, () => {
      started.push(`fast${i}`);
      return Promise.resolve();
    }));
  }
  await clock.advance(0);
  // The slow server got its share; the healthy feeds started at once beside it.
  assert.deepEqual(started, [
    "slow0",
    "slow1",
    "slow2",
    "slow3",
    "fast0",
    "fast1",
    "fast2",
    "fast3",
  ]);
  assert.equal(slots.byOrigin.get(SLOW), 4);
  assert.equal(slots.waiting, 20);
  // The first slow fetches end after more than half the timeout: the origin is known slow,
  // and the next four of its feeds take its share again (never more).
  await clock.advance(20_000);
  for (const g of gates.slice(0, 4)) g.resolve();
  await clock.advance(0);
  assert.ok(slots.slow.has(SLOW));
  assert.ok(!slots.slow.has(FAST));
  assert.deepEqual(started.slice(8), ["slow4", "slow5", "slow6", "slow7"]);
  assert.equal(slots.inUse, 4);
  for (const g of gates) g.resolve();
  await Promise.all(runs);
  assert.equal(slots.inUse, 0);
  // A fast fetch of the slow origin clears its mark.
  await runUnder(slots, SLOW, () => Promise.resolve());
  assert.ok(!slots.slow.has(SLOW));
});

Deno.test("fetch slots: a failing task frees its slot; a slot taken is released once", async () => {
  const slots = new FetchSlots(1, new ManualClock(), 15_000);
  await assert.rejects(runUnder(slots, FAST, () => Promise.reject(new Error("x"))), /x/);
  const slot = await acquire(slots, FAST);
  slot.release();
  slot.release();
  assert.equal(slots.inUse, 0);
  assert.equal(await runUnder(slots, FAST, () => Promise.resolve(7)), 7);
});

Deno.test("fetch slots: alone, a fast origin takes the slots beyond its half; unknown and slow ones do not", () => {
  const one = "http://one.example";
  const other = "http://other.example";
  // At its share (4 of 8), alone: only a fast origin may go on.
  assert.equal(nextOrigin([one], inUse({ [one]: 4 })), null);
  assert.equal(nextOrigin([one], inUse({ [one]: 4 }, [one])), null);
  assert.equal(nextOrigin([one], inUse({ [one]: 4 }, [], 8, [one])), one);
  assert.equal(nextOrigin([one], inUse({ [one]: 7 }, [], 8, [one])), one);
  assert.equal(nextOrigin([one], inUse({ [one]: 8 }, [], 8, [one])), null);
  // Another origin waiting: the half stays for it, fast or not.
  assert.equal(nextOrigin([one, other], inUse({ [one]: 4 }, [], 8, [one])), other);
  assert.equal(nextOrigin([one, other], inUse({ [one]: 4, [other]: 4 }, [], 8, [one])), null);
});
