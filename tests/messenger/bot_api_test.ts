import assert from "node:assert/strict";
import { BotApi, type BotApiOptions } from "../../src/messenger/bot_api.ts";
import { ChatError, MessengerFatalError } from "../../src/messenger/errors.ts";
import { TELEGRAM_LIMITS } from "../../src/messenger/pacer.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { createLogger } from "../../src/log/logger.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";

const TOKEN = "123456:TEST-token_abc";
const message = { html: "<b>Hi &amp; bye</b>", previews: true };

/**
 * A virtual clock shared by the client and the fake: the client's waits advance it at once, so
 * a minute of pacing takes no real time. Sends are serial in these tests.
 */
function virtualClock() {
  const clock = { t: 1_000_000, slept: [] as number[] };
  return {
    clock,
    now: () => clock.t,
    sleep: (ms: number) => {
      clock.slept.push(ms);
      clock.t += ms;
      return Promise.resolve();
    },
  };
}

async function setup(overrides: Partial<BotApiOptions> = {}, limited = true) {
  const v = virtualClock();
  const fake = await startFakeBotApi({ now: v.now, limits: limited ? undefined : null });
  const logs: string[] = [];
  const api = new BotApi({
    baseUrl: fake.url,
    token: new Secret(TOKEN),
    now: v.now,
    sleep: v.sleep,
    logger: createLogger({
      format: "text",
      color: false,
      level: "debug",
      write: (l) => logs.push(l),
    }),
    ...overrides,
  });
  return { fake, api, clock: v.clock, logs };
}

async function withSetup(
  fn: (s: Awaited<ReturnType<typeof setup>>) => Promise<void>,
  overrides: Partial<BotApiOptions> = {},
) {
  const s = await setup(overrides);
  try {
    await fn(s);
    for (const line of s.logs) assert.ok(!line.includes(TOKEN), line);
  } finally {
    await s.fake.close();
  }
}

Deno.test("sendMessage posts HTML and returns the message id", () =>
  withSetup(async ({ fake, api }) => {
    const a = await api.send("@news_chan", message);
    const b = await api.send("@news_chan", message);
    assert.deepEqual([a, b], [{ messageId: 1, chat: "@news_chan" }, {
      messageId: 2,
      chat: "@news_chan",
    }]);
    const got = fake.messages("@news_chan");
    assert.equal(got.length, 2);
    assert.equal(got[0].html, message.html);
    assert.deepEqual(got[0].bold, ["Hi & bye"]);
    assert.equal(got[0].previews, true);
  }));

Deno.test("a 429's retry_after is honoured, then the message goes once", () =>
  withSetup(async ({ fake, api, clock }) => {
    fake.inject({ kind: "429", retryAfter: 7 });
    const start = clock.t;
    await api.send("-1001", message);
    assert.equal(fake.messages("-1001").length, 1);
    assert.equal(fake.throttled, 1);
    assert.ok(clock.t - start >= 7000, `waited ${clock.t - start} ms`);
  }));

Deno.test("5xx answers are retried with growing backoff", () =>
  withSetup(async ({ fake, api, clock }) => {
    fake.inject({ kind: "500", times: 3 });
    await api.send("@news_chan", message);
    assert.deepEqual(clock.slept, [1000, 2000, 4000]);
    assert.equal(fake.requests, 4);
    assert.equal(fake.messages().length, 1);
  }));

Deno.test("retries are bounded: a messenger that keeps failing fails the chat", () =>
  withSetup(async ({ fake, api }) => {
    fake.inject({ kind: "500", times: Infinity });
    await assert.rejects(api.send("@news_chan", message), (e: Error) => {
      assert.ok(e instanceof ChatError);
      assert.match(e.message, /unavailable after 4 attempts/);
      return true;
    });
    assert.equal(fake.requests, 4);
  }, { retries: 3 }));

Deno.test("a request that gets no answer times out and is retried", () =>
  withSetup(async ({ fake, api }) => {
    fake.inject({ kind: "timeout" });
    const sent = await api.send("@news_chan", message);
    assert.equal(sent.messageId, 1);
    assert.equal(fake.requests, 2);
  }, { timeoutMs: 150 }));

Deno.test("400 chat not found and 403 fail the chat at once, without retries", () =>
  withSetup(async ({ fake, api }) => {
    fake.addMissingChat("@gone_chan");
    await assert.rejects(api.send("@gone_chan", message), (e: Error) => {
      assert.ok(e instanceof ChatError);
      assert.equal(e.status, 400);
      assert.equal(
        e.message,
        "chat @gone_chan: 400 Bad Request: chat not found; check that the bot is an " +
          "administrator of the channel and that the name is spelt as in its t.me link (a " +
          "private channel has no name: use its -100... id)",
      );
      return true;
    });
    fake.inject({ kind: "forbidden" });
    await assert.rejects(api.send("@news_chan", message), (e: Error) => {
      assert.ok(e instanceof ChatError);
      assert.equal(e.status, 403);
      assert.match(e.message, /Forbidden/);
      return true;
    });
    assert.equal(fake.requests, 2);
  }));

Deno.test("401 is fatal and its message never holds the token", () =>
  withSetup(async ({ fake, api }) => {
    fake.inject({ kind: "unauthorized" });
    await assert.rejects(api.send("@news_chan", message), (e: Error) => {
      assert.ok(e instanceof MessengerFatalError);
      assert.match(e.message, /401/);
      assert.ok(!e.message.includes(TOKEN));
      return true;
    });
  }));

Deno.test("a wrong token (the fake answers 401) is fatal", async () => {
  const fake = await startFakeBotApi();
  try {
    const api = new BotApi({ baseUrl: fake.url, token: new Secret("999:wrong-token") });
    await assert.rejects(api.send("@news_chan", message), MessengerFatalError);
  } finally {
    await fake.close();
  }
});

Deno.test("network errors are retried, and reported without the token", async () => {
  // A port that was just free: connection refused.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const v = virtualClock();
  const api = new BotApi({
    baseUrl: `http://127.0.0.1:${port}`,
    token: new Secret(TOKEN),
    now: v.now,
    sleep: v.sleep,
    retries: 2,
  });
  await assert.rejects(api.send("@news_chan", message), (e: Error) => {
    assert.ok(e instanceof ChatError);
    assert.ok(!e.message.includes(TOKEN), e.message);
    assert.ok(!e.message.includes("TEST-token"), e.message);
    assert.ok(e.message.includes(`http://127.0.0.1:${port}/bot[redacted]/sendMessage`), e.message);
    return true;
  });
  assert.equal(v.clock.slept.length, 2);
});

Deno.test("migrate_to_chat_id is followed, reported, and the new chat used", async () => {
  const migrations: [string, string][] = [];
  await withSetup(async ({ fake, api, logs }) => {
    fake.inject({ kind: "migrate", chat: "-4242", migrateTo: "-1004242" });
    const sent = await api.send("-4242", message);
    assert.deepEqual(sent, { messageId: 1, chat: "-1004242" });
    assert.deepEqual(migrations, [["-4242", "-1004242"]]);
    assert.equal(fake.messages("-1004242").length, 1);
    assert.equal(fake.messages("-4242").length, 0);
    assert.ok(logs.some((l) => l.includes("migrated") && l.includes("-1004242")));
  }, { onMigrate: (from, to) => void migrations.push([from, to]) });
});

Deno.test("pacing keeps one chat within 20 a minute: no 429 from a strict server", () =>
  withSetup(async ({ fake, api, clock }) => {
    const start = clock.t;
    for (let i = 0; i < 45; i++) await api.send("@busy_chan", message);
    assert.equal(fake.throttled, 0);
    const times = fake.messages("@busy_chan").map((m) => m.at - start);
    assert.equal(times.length, 45);
    const window = 60_000 + TELEGRAM_LIMITS.marginMs;
    assert.equal(times[20], window);
    assert.equal(times[40], 2 * window);
  }));

Deno.test("pacing keeps all chats within 30 a second: no 429 from a strict server", () =>
  withSetup(async ({ fake, api, clock }) => {
    const start = clock.t;
    for (let i = 0; i < 95; i++) await api.send(`@chan_${i}`, message);
    assert.equal(fake.throttled, 0);
    const times = fake.messages().map((m) => m.at - start);
    assert.equal(times[30], 1000 + TELEGRAM_LIMITS.marginMs);
    assert.equal(times[90], 3 * (1000 + TELEGRAM_LIMITS.marginMs));
  }));

Deno.test("an abort stops a waiting send", () =>
  withSetup(async ({ api }) => {
    const controller = new AbortController();
    controller.abort(new Error("run stopped"));
    await assert.rejects(api.send("@news_chan", message, controller.signal), /run stopped/);
  }));

Deno.test("a 429 does not eat into the chat's allowance: 20 messages still fit the minute", () =>
  withSetup(async ({ fake, api, clock }) => {
    fake.inject({ kind: "429", retryAfter: 1 });
    const start = clock.t;
    for (let i = 0; i < 20; i++) await api.send("@busy_chan", message);
    assert.equal(fake.messages("@busy_chan").length, 20);
    assert.ok(clock.t - start < 60_000, `took ${clock.t - start} ms`);
  }));
