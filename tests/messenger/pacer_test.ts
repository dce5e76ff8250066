import assert from "node:assert/strict";
import { type Limit, Pacer, type RateLimits, TELEGRAM_LIMITS } from "../../src/messenger/pacer.ts";

/** Asserts that no window of `limit.windowMs` holds more than `limit.count` of `times`. */
function assertWithin(times: number[], limit: Limit, what: string) {
  const sorted = [...times].sort((a, b) => a - b);
  for (let i = limit.count; i < sorted.length; i++) {
    assert.ok(
      sorted[i] - sorted[i - limit.count] >= limit.windowMs,
      `${what}: ${limit.count + 1} sends within ${sorted[i] - sorted[i - limit.count]} ms`,
    );
  }
}

/** Serves each chat's queue as soon as the pacer allows, like concurrent senders would. */
function simulate(pacer: Pacer, queues: Map<string, number>, start = 0) {
  const sends: { chat: string; at: number }[] = [];
  const nextTry = new Map([...queues.keys()].map((c) => [c, start]));
  const left = new Map(queues);
  while ([...left.values()].some((n) => n > 0)) {
    // The chat whose turn comes first (ties in insertion order), as an event loop would.
    let chat = "";
    let t = Infinity;
    for (const [c, at] of nextTry) {
      if (left.get(c)! > 0 && at < t) [chat, t] = [c, at];
    }
    const r = pacer.reserve(chat, t);
    if (r.reserved) {
      sends.push({ chat, at: r.at });
      left.set(chat, left.get(chat)! - 1);
      nextTry.set(chat, r.at + 1); // the next send is asked for after this one completes
    } else {
      assert.ok(r.retryAt > t);
      nextTry.set(chat, r.retryAt);
    }
  }
  return sends;
}

Deno.test("per chat: 20 go at once, the 21st a minute (plus margin) after the first", () => {
  const pacer = new Pacer();
  for (let i = 0; i < 20; i++) assert.deepEqual(pacer.reserve("@a", 0), { reserved: true, at: 0 });
  const r = pacer.reserve("@a", 10);
  assert.deepEqual(r, { reserved: false, retryAt: 60_000 + TELEGRAM_LIMITS.marginMs });
  // Another chat is not held back by @a.
  assert.equal(pacer.reserve("@b", 10).reserved, true);
});

Deno.test("overall: the 31st message in a second waits for the window", () => {
  const pacer = new Pacer();
  for (let i = 0; i < 30; i++) {
    assert.deepEqual(pacer.reserve(`@c${i}`, 5), { reserved: true, at: 5 });
  }
  assert.deepEqual(pacer.reserve("@other", 6), {
    reserved: true,
    at: 5 + 1000 + TELEGRAM_LIMITS.marginMs,
  });
});

Deno.test("a blocked chat (429) is ready only after retry_after", () => {
  const pacer = new Pacer();
  pacer.block("@a", 7_000);
  assert.deepEqual(pacer.reserve("@a", 100), { reserved: false, retryAt: 7_000 });
  assert.equal(pacer.chatReadyAt("@b", 100), 100);
  assert.equal(pacer.reserve("@a", 7_000).reserved, true);
});

Deno.test("600 messages to 30 chats: within both limits, in the least time they allow", () => {
  const pacer = new Pacer();
  const queues = new Map(Array.from({ length: 30 }, (_, i) => [`@chan${i}`, 20]));
  const sends = simulate(pacer, queues);
  assert.equal(sends.length, 600);
  assertWithin(sends.map((s) => s.at), TELEGRAM_LIMITS.global, "overall");
  for (const chat of queues.keys()) {
    assertWithin(
      sends.filter((s) => s.chat === chat).map((s) => s.at),
      TELEGRAM_LIMITS.perChat,
      chat,
    );
  }
  const last = Math.max(...sends.map((s) => s.at));
  // 600 at 30 per (1 s + margin): the last batch starts after 19 windows.
  assert.equal(last, 19 * (1000 + TELEGRAM_LIMITS.marginMs));
});

Deno.test("random traffic never breaks a limit", () => {
  const limits: RateLimits = {
    perChat: { count: 3, windowMs: 500 },
    global: { count: 5, windowMs: 100 },
    marginMs: 0,
  };
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 20; round++) {
    const pacer = new Pacer(limits);
    const queues = new Map(
      Array.from(
        { length: 1 + Math.floor(rand() * 8) },
        (_, i) => [`c${i}`, Math.floor(rand() * 15)],
      ),
    );
    const sends = simulate(pacer, queues, Math.floor(rand() * 1000));
    assertWithin(sends.map((s) => s.at), limits.global, "overall");
    for (const chat of queues.keys()) {
      const times = sends.filter((s) => s.chat === chat).map((s) => s.at);
      assert.equal(times.length, queues.get(chat));
      assertWithin(times, limits.perChat, chat);
    }
  }
});

Deno.test("a cancelled slot (refused with 429) does not count against the chat", () => {
  const pacer = new Pacer();
  for (let i = 0; i < 19; i++) pacer.reserve("@a", 0);
  const r = pacer.reserve("@a", 0);
  assert.ok(r.reserved);
  pacer.cancel("@a", r.at);
  // The retry is the 20th message of the minute, not the 21st.
  assert.deepEqual(pacer.reserve("@a", 1_000), { reserved: true, at: 1_000 });
  assert.equal(pacer.reserve("@a", 1_001).reserved, false);
});
