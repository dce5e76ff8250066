/**
 * `once` against the local fake Bot API when the messenger holds a channel for a day or refuses
 * one message's content: the run must end, and the other feeds and entries must go on.
 */
import assert from "node:assert/strict";
import { ONCE_MAX_MESSENGER_WAIT_MS, runOnce } from "../../src/forward/once.ts";
import { BotApi } from "../../src/messenger/bot_api.ts";
import { Secret } from "../../src/log/secret.ts";
import { Store } from "../../src/store/db.ts";
import type { FeedSettings } from "../../src/config/types.ts";
import { makeEntry, makeFeed, memoryLogger, StubReader } from "../support/forward_stubs.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";

const url = (name: string) => `https://feeds.example/${name}.xml`;

/**
 * The client's waits move the virtual clock at once (and are added up), so a test learns what a
 * wait would have cost without waiting.
 */
async function harness() {
  // A virtual monotonic clock: ManualClock's advance settles asynchronously, and the client
  // reads the time right after its sleep resolves.
  let t = 1_000_000;
  let waited = 0;
  const fake = await startFakeBotApi({ now: () => t, limits: null });
  const dir = await Deno.makeTempDir();
  const store = (await Store.open(dir))!;
  const reader = new StubReader();
  const { logger, lines } = memoryLogger();
  const outbox = new BotApi({
    baseUrl: fake.url,
    token: new Secret(fake.token),
    now: () => t,
    sleep: (ms) => {
      waited += ms;
      t += ms;
      return Promise.resolve();
    },
    retries: 0,
  });
  const run = (feeds: FeedSettings[]) =>
    runOnce({
      feeds,
      read: reader.read,
      state: store,
      outbox,
      successLog: { record: () => Promise.resolve() },
      logger,
      concurrency: 4,
    });
  return {
    fake,
    store,
    reader,
    lines,
    run,
    waited: () => waited,
    close: async () => {
      store.close();
      await fake.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("once: a retry_after of 100000 s fails that channel's feeds at once, entries kept; other channels deliver", async () => {
  const h = await harness();
  try {
    const held = makeFeed("held", { channel: "@chan_held" });
    const sameChannel = makeFeed("held2", { channel: "@chan_held" });
    const free = makeFeed("free", { channel: "@chan_free" });
    h.reader.feeds.set(url("held"), [makeEntry("a", 1), makeEntry("b", 2)]);
    h.reader.feeds.set(url("held2"), [makeEntry("c", 3)]);
    h.reader.feeds.set(url("free"), [makeEntry("d", 4), makeEntry("e", 5)]);
    h.fake.inject({ kind: "429", chat: "@chan_held", retryAfter: 100_000 });

    const summary = await h.run([held, sameChannel, free]);
    const byName = new Map(summary.results.map((r) => [r.feed, r]));
    const expected = "rate limited by the messenger for 27 h 46 min; entries kept";
    assert.equal(byName.get("held")!.error, expected);
    assert.equal(byName.get("held")!.failed, 2);
    // The channel stays held: its next feed does not ask again, nor wait.
    assert.match(
      byName.get("held2")!.error ?? "",
      /^rate limited by the messenger for 27 h 46 min/,
    );
    assert.equal(byName.get("free")!.error, null);
    assert.equal(byName.get("free")!.sent, 2);
    assert.deepEqual(h.fake.messages("@chan_free").map((m) => m.bold[0]), ["Title d", "Title e"]);
    assert.equal(h.fake.messages("@chan_held").length, 0);
    assert.equal(h.fake.throttled, 1);
    // What the huge retry_after now costs `once`: no wait at all (bound: 60 s).
    assert.equal(h.waited(), 0);
    assert.ok(h.lines.some((l) => l.includes("feed failed") && l.includes("27 h 46 min")));
    const kept = await h.store.query("SELECT count(*) FROM entries WHERE feed LIKE 'held%'");
    assert.deepEqual(kept, [[0]]);
  } finally {
    await h.close();
  }
});

Deno.test("once: a retry_after within the bound is waited out and the message goes", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("short", { channel: "@chan_short" });
    h.reader.feeds.set(url("short"), [makeEntry("a", 1)]);
    h.fake.inject({ kind: "429", chat: "@chan_short", retryAfter: 60 });
    const summary = await h.run([feed]);
    assert.equal(summary.results[0].error, null);
    assert.equal(summary.results[0].sent, 1);
    assert.equal(h.waited(), 60_000);
    assert.equal(ONCE_MAX_MESSENGER_WAIT_MS, 60_000);
  } finally {
    await h.close();
  }
});
