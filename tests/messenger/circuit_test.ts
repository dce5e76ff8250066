/**
 * A chat's circuit (src/messenger/circuit.ts): the rule on its own, then the Bot API client
 * against the fake Bot API while the messenger answers 500 to everything.
 */
import assert from "node:assert/strict";
import { BotApi } from "../../src/messenger/bot_api.ts";
import { Circuit } from "../../src/messenger/circuit.ts";
import { ChatError } from "../../src/messenger/errors.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";

const message = { html: "<b>Hi</b>", previews: true };

Deno.test("circuit: closed, held after a failure, then one probe; holds double to a bound", () => {
  const c = new Circuit({ coolMs: 30_000, maxCoolMs: 100_000 });
  assert.deepEqual(c.admit("@a", 0), { kind: "send" });
  c.trip("@a", 1_000, "HTTP 500");
  assert.deepEqual(c.admit("@a", 1_000), { kind: "held", until: 31_000, reason: "HTTP 500" });
  assert.deepEqual(c.admit("@b", 1_000), { kind: "send" }, "other chats are not held");
  assert.deepEqual(c.admit("@a", 31_000), { kind: "probe" });
  c.trip("@a", 31_000, "HTTP 502");
  assert.equal((c.admit("@a", 31_000) as { until: number }).until, 91_000);
  c.trip("@a", 91_000, "HTTP 502");
  assert.equal((c.admit("@a", 91_000) as { until: number }).until, 191_000, "at most maxCoolMs");
  c.reset("@a");
  assert.deepEqual(c.admit("@a", 91_000), { kind: "send" });
});

Deno.test("circuit: while the messenger is down, a chat's later sends do not pay the retry ladder", async () => {
  const fake = await startFakeBotApi({ limits: null });
  try {
    let t = 0;
    const api = new BotApi({
      baseUrl: fake.url,
      token: new Secret(fake.token),
      now: () => t,
      sleep: (ms) => {
        t += ms;
        return Promise.resolve();
      },
      retries: 5,
      circuit: new Circuit({ coolMs: 30_000 }),
    });
    // Down for the next 13 requests, whoever asks.
    fake.inject({ kind: "500", times: 13 });
    // The first send pays the ladder: 6 attempts.
    await assert.rejects(api.send("@chan", message), /unavailable after 6 attempts/);
    assert.equal(fake.requests, 6);
    // The channel's next sends fail at once, asking nothing.
    for (let i = 0; i < 3; i++) {
      await assert.rejects(api.send("@chan", message), (e: Error) => {
        assert.ok(e instanceof ChatError);
        assert.match(
          e.message,
          /chat @chan: messenger unavailable \(HTTP 500 .*\); not tried again for \d+ s/,
        );
        return true;
      });
    }
    assert.equal(fake.requests, 6);
    // Another chat is not held by this one's circuit.
    await assert.rejects(api.send("@other", message), /after 6 attempts/);
    assert.equal(fake.requests, 12);
    // After the hold, one probe: still down, so held again without a ladder.
    t += 30_000;
    await assert.rejects(api.send("@chan", message), /unavailable after 1 attempt:/);
    assert.equal(fake.requests, 13);
    await assert.rejects(api.send("@chan", message), /not tried again for 60 s/, "doubled");
    // The messenger is back: after the hold the probe goes through and closes the circuit.
    t += 60_000;
    await api.send("@chan", message);
    await api.send("@chan", message);
    assert.equal(fake.requests, 15);
    assert.equal(fake.messages("@chan").length, 2);
  } finally {
    await fake.close();
  }
});
