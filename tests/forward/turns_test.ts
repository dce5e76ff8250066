import assert from "node:assert/strict";
import { ChannelTurns } from "../../src/forward/turns.ts";

Deno.test("turns: a channel's turns go in the order taken; channels are independent", async () => {
  const turns = new ChannelTurns();
  const a1 = turns.take("@a");
  const a2 = turns.take("@a");
  const b1 = turns.take("@b");
  const order: string[] = [];
  const waits = [
    a2.ready.then(() => order.push("a2")),
    b1.ready.then(() => order.push("b1")),
    a1.ready.then(() => order.push("a1")),
  ];
  await b1.ready;
  await a1.ready;
  assert.deepEqual(order.sort(), ["a1", "b1"]);
  a1.done();
  await Promise.all(waits);
  assert.deepEqual(order, ["a1", "b1", "a2"]);
});

Deno.test("turns: a turn done before it was ready hands over only after the earlier ones", async () => {
  const turns = new ChannelTurns();
  const first = turns.take("@a");
  const idle = turns.take("@a"); // nothing to send: done at once, without waiting
  const last = turns.take("@a");
  const order: string[] = [];
  const lastReady = last.ready.then(() => order.push("last"));
  idle.done();
  await first.ready;
  // Let every settled promise run: the last turn must still be waiting for the first.
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.equal(order.length, 0);
  order.push("first done");
  first.done();
  await lastReady;
  assert.deepEqual(order, ["first done", "last"]);
});
