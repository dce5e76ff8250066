/**
 * The Bot API client's side of fencing and of counting what Telegram counts (issue 38): a send
 * asks whether its process still holds the channel right before each request, after the wait
 * for a slot and before each retry, never only before the wait; and a send's slot counts from
 * its answer, since Telegram counts a message when it arrives. On a virtual clock shared with
 * the fake Bot API (the client's waits advance it at once) and the fake on loopback.
 */
import assert from "node:assert/strict";
import { BotApi, type BotApiOptions } from "../../src/messenger/bot_api.ts";
import { NotHeldError } from "../../src/messenger/errors.ts";
import { Pacer, TELEGRAM_LIMITS } from "../../src/messenger/pacer.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { type FakeBotApiOptions, startFakeBotApi } from "../support/fake_bot_api.ts";

const TOKEN = "123456:TEST-token_abc";
const message = { html: "<b>entry</b>", previews: true };

async function setup(
  overrides: Partial<BotApiOptions> = {},
  fakeOptions: FakeBotApiOptions = {},
) {
  const clock = { t: 1_000_000 };
  const now = () => clock.t;
  const fake = await startFakeBotApi({ now, ...fakeOptions });
  const pacer = new Pacer();
  const api = new BotApi({
    baseUrl: fake.url,
    token: new Secret(TOKEN),
    now,
    sleep: (ms) => {
      clock.t += ms;
      return Promise.resolve();
    },
    pacer,
    ...overrides,
  });
  return { fake, api, clock, pacer };
}

Deno.test("fencing: a lease that ends while the message waits for its slot: nothing is sent", async () => {
  const { fake, api, clock, pacer } = await setup();
  try {
    // The chat's 20 of this minute are used: the next slot is a minute away.
    pacer.seed("@chan", Array.from({ length: 20 }, (_, i) => clock.t + i));
    const held = clock.t + 30_000;
    await assert.rejects(
      api.send("@chan", message, undefined, { until: () => held }),
      (e) => e instanceof NotHeldError && /no longer holds the channel's lease/.test(e.message),
    );
    assert.ok(clock.t >= held, "it waited for the slot, then asked");
    assert.equal(fake.requests, 0, "no request went out after the lease ended");
    // A renewed lease: the same wait ends in a send, and the slot refused above was given back.
    await api.send("@chan", message, undefined, { until: () => clock.t + 30_000 });
    assert.equal(fake.messages("@chan").length, 1);
  } finally {
    await fake.close();
  }
});

Deno.test("fencing: asked again before a retry; a request starts only with time left", async () => {
  const { fake, api, clock } = await setup({ backoffMs: 1_000, minRequestMs: 1_000 });
  try {
    fake.inject({ kind: "500", times: 1 });
    const held = clock.t + 1_500;
    await assert.rejects(
      api.send("@chan", message, undefined, { until: () => held }),
      NotHeldError,
    );
    assert.equal(fake.requests, 1, "the retry after the backoff found the lease over");
    // Less than minRequestMs left: not even a first request.
    const almost = clock.t + 999;
    await assert.rejects(api.send("@chan", message, undefined, { until: () => almost }));
    assert.equal(fake.requests, 1);
    assert.equal(fake.messages().length, 0);
  } finally {
    await fake.close();
  }
});

Deno.test("pacing counts a send from its answer: a first message that arrives late", async () => {
  const { fake, api, clock } = await setup({}, {
    // The first request takes 1.5 s to reach the server (a new connection, a slow network):
    // the fake, enforcing Telegram's limits by arrival, stamps it then.
    beforeMessage: (n) => {
      if (n === 1) clock.t += 1_500;
    },
  });
  try {
    const start = clock.t;
    for (let i = 0; i < 21; i++) await api.send("@burst", message);
    assert.equal(fake.throttled, 0, "the 21st never reached the server inside the minute");
    const times = fake.messages("@burst").map((m) => m.at - start);
    assert.equal(times.length, 21);
    assert.ok(times[20] - times[0] >= 60_000, `${times[20] - times[0]} ms from 1st to 21st`);
    assert.equal(times[20], 1_500 + 60_000 + TELEGRAM_LIMITS.marginMs);
  } finally {
    await fake.close();
  }
});

Deno.test("pacer: shareGlobal splits the overall 30 a second between processes", () => {
  const pacer = new Pacer();
  const at = (n: number) => {
    const slots: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = pacer.reserve(`@c${slots.length}_${n}`, 0);
      assert.ok(r.reserved);
      slots.push(r.at);
    }
    return slots;
  };
  pacer.shareGlobal(2);
  const two = at(16);
  assert.equal(two.filter((t) => t === 0).length, 15, "15 a second each of two processes");
  assert.equal(two[15], 1_000 + TELEGRAM_LIMITS.marginMs);
  const alone = new Pacer();
  for (let i = 0; i < 30; i++) {
    assert.deepEqual(alone.reserve(`@d${i}`, 0), { reserved: true, at: 0 });
  }
});
