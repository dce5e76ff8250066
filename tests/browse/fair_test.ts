import assert from "node:assert/strict";
import { evictee, owing, pickWaiter, type Waiting } from "../../src/browse/pool/fair.ts";

const w = (client: string, more: Partial<Waiting> = {}): Waiting => ({
  client,
  suspect: false,
  download: false,
  ...more,
});
const held = (entries: Record<string, number>) => new Map(Object.entries(entries));

Deno.test("fair pick: a free worker goes to the waiting client holding the fewest, not the oldest waiter", () => {
  // A's runaways queued first; B holds nothing.
  const queue = [w("A"), w("A"), w("A"), w("B")];
  assert.equal(pickWaiter(queue, held({ A: 2 }), false, true), 3);
  // B's second request after B got one: still B while it holds fewer.
  assert.equal(pickWaiter([w("A"), w("B"), w("B")], held({ A: 3, B: 1 }), false, true), 1);
  // Holding as many: the oldest first (round robin between equals).
  assert.equal(pickWaiter([w("A"), w("B")], held({ A: 1, B: 1 }), false, true), 0);
  assert.equal(pickWaiter([w("B"), w("A")], held({ A: 1, B: 1 }), false, true), 0);
});

Deno.test("fair pick: within a client, a fresh request before a remembered runaway; one client alone is FIFO", () => {
  const one = [w("", { suspect: true }), w(""), w("")];
  assert.equal(pickWaiter(one, held({ "": 2 }), false, true), 1);
  assert.equal(pickWaiter([w(""), w("")], held({}), false, true), 0);
  // A client holding fewer is served though its request is a remembered runaway.
  assert.equal(pickWaiter([w("A"), w("B", { suspect: true })], held({ A: 2 }), false, true), 1);
});

Deno.test("fair pick: a spare serves neither remembered runaways nor downloads; a download needs room", () => {
  const queue = [w("B", { suspect: true }), w("C", { download: true }), w("A")];
  assert.equal(pickWaiter(queue, held({ A: 2 }), true, true), 2);
  assert.equal(pickWaiter([w("B", { suspect: true })], held({}), true, true), -1);
  assert.equal(pickWaiter([w("C", { download: true }), w("A")], held({ A: 1 }), false, false), 1);
  assert.equal(pickWaiter([w("C", { download: true }), w("A")], held({ A: 1 }), false, true), 0);
});

Deno.test("fair hand-over: the client holding two more than a waiting one owes it a worker", () => {
  assert.equal(owing([w("A"), w("B")], held({ A: 2 }), true, true), "A");
  assert.equal(owing([w("B")], held({ A: 3, B: 1 }), true, true), "A");
  // One more only: a hand-over would just swap who is ahead.
  assert.equal(owing([w("B")], held({ A: 2, B: 1 }), true, true), null);
  assert.equal(owing([w("B")], held({ A: 1 }), true, true), null);
  // Only its own requests wait: nobody is owed.
  assert.equal(owing([w("A"), w("A")], held({ A: 4 }), true, true), null);
  // A waiter the freed worker may not serve is not owed it.
  assert.equal(owing([w("B", { suspect: true })], held({ A: 2 }), true, true), null);
  assert.equal(owing([w("B", { suspect: true })], held({ A: 2 }), false, true), "A");
  assert.equal(owing([w("B", { download: true })], held({ A: 2 }), false, false), null);
});

Deno.test("fair queue: when full, the client with the most waiting loses its newest, not a client waiting for less", () => {
  const queue = [w("A"), w("A"), w("B"), w("A")];
  assert.equal(evictee(queue, "C"), 3);
  assert.equal(evictee(queue, "B"), 3);
  // The crowding client itself is refused: it has the most.
  assert.equal(evictee(queue, "A"), -1);
  // As many waiting as anyone: the newcomer is refused.
  assert.equal(evictee([w("A"), w("B")], "B"), -1);
  assert.equal(evictee([w("A"), w("A"), w("B"), w("B")], "B"), -1);
});
