/**
 * Telegram's limits across processes (issue 38), with `Runtime` built as `forward` builds it
 * (the store, its leases, the pacer, the Bot API client) on an injected clock, the fake Bot API
 * enforcing the limits by arrival on that clock, and a SQLite file behind the store's remote
 * interface as the shared server (its clock the test's, StoreOptions.databaseNow):
 * - a channel that just got its 20 is taken over (handed back) by a process whose own clock is
 *   10 s behind the database's: the new holder waits out the previous holder's minute;
 * - a restart 45 s after a channel's 20 sends waits the 15 s left, not the whole minute or none;
 * - two live processes share the overall 30 a second.
 * Every wait is on the test's clock; nothing sleeps.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { parseSettings } from "../../src/config/load.ts";
import { Runtime } from "../../src/forward/runtime.ts";
import { Database } from "../../src/store/sqlite.ts";
import type { Clock } from "../../src/time/clock.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { memoryLogger } from "../support/forward_stubs.ts";
import { ManualClock } from "../support/manual_clock.ts";

const TOKEN = "123456:TEST-token_abc";
const message = { html: "<b>entry</b>", previews: true };

/** `base`'s timers and monotonic time, its wall clock `offsetMs` off. */
function skewed(base: ManualClock, offsetMs: number): Clock {
  return {
    now: () => base.now() + offsetMs,
    monotonic: () => base.monotonic(),
    setTimeout: (fn, ms) => base.setTimeout(fn, ms),
    clearTimeout: (id) => base.clearTimeout(id),
  };
}

async function world(remote: boolean) {
  const dir = await Deno.makeTempDir();
  const base = new ManualClock(Date.UTC(2026, 2, 1, 12));
  const bot = await startFakeBotApi({ token: TOKEN, now: () => base.monotonic() });
  const settings = parseSettings(
    stringify({
      messenger_auth_token: TOKEN,
      data_dir: dir,
      ...(remote ? { db_url: "http://state.invalid:8080" } : {}),
      feeds: [{
        name: "busy",
        channel: "@busy",
        url: "http://127.0.0.1:9/busy.xml",
        cron: "* * * * *",
        type: "rss",
      }],
    }),
    `${dir}/config.yml`,
    dir,
  );
  const open = (clock: Clock) =>
    Runtime.open({
      settings,
      feeds: settings.feeds,
      dryRun: false,
      messengerApi: bot.url,
      logger: memoryLogger().logger,
      writeOut: () => {},
      clock,
      leaseTtlMs: 20_000,
      databaseNow: () => base.now(),
      connect: async () => {
        const db = Database.open(`${dir}/server.db`);
        await db.execute("PRAGMA journal_mode = WAL");
        await db.execute("PRAGMA busy_timeout = 5000");
        return db;
      },
    });
  /** Sends the channel's 20 from `runtime`, recorded as sent, 500 ms apart. */
  const sendTwenty = async (runtime: Runtime, clock: Clock) => {
    for (let i = 0; i < 20; i++) {
      const sent = await runtime.outbox.send("@busy", message);
      await runtime.state.markSent(
        "busy",
        { id: `e${i}`, title: `e${i}`, link: `https://example.org/${i}` } as never,
        sent.chat,
        sent.messageId,
        new Date(clock.now()),
      );
      await base.advance(500);
    }
  };
  /**
   * Sends one more, moving the clock on in steps of 250 ms until the fake has it; returns the
   * fake's arrival time. The client's request goes over loopback, so each step lets I/O run.
   */
  const oneMore = async (runtime: Runtime) => {
    const before = bot.messages().length;
    let failed: unknown = null;
    const sending = runtime.outbox.send("@busy", message).catch((e) => failed = e);
    for (let i = 0; i < 800 && bot.messages().length === before && failed === null; i++) {
      await base.advance(250);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await sending;
    if (failed !== null) throw failed;
    return bot.messages().at(-1)!.at;
  };
  const close = async () => {
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { base, bot, open, sendTwenty, oneMore, close };
}

/** At most 20 in any 60 s of the fake's arrival times. */
function withinMinute(times: number[]): void {
  for (const t of times) {
    const n = times.filter((u) => u >= t && u < t + 60_000).length;
    assert.ok(n <= 20, `${n} messages in the 60 s from ${t}`);
  }
}

Deno.test("takeover: a channel that just got its 20, handed to a process 10 s behind, waits out the minute", async () => {
  const w = await world(true);
  const a = await w.open(w.base);
  const bClock = skewed(w.base, -10_000);
  const b = await w.open(bClock);
  try {
    assert.ok(a.leases!.holds("@busy"), "the first process holds the channel");
    assert.equal(b.leases!.held, 0);
    const first = w.base.monotonic();
    await w.sendTwenty(a, w.base);
    // A clean stop hands the lease back; B takes it at its next step and takes the channel over.
    await a.close();
    await b.leases!.refresh();
    assert.ok(b.leases!.holds("@busy"));
    await b.takeOver(["@busy"], []);
    const at = await w.oneMore(b);
    assert.ok(at >= first + 60_000, `the 21st went ${at - first} ms after the 1st`);
    assert.equal(w.bot.throttled, 0, "the fake never had to refuse a message");
    withinMinute(w.bot.messages("@busy").map((m) => m.at));
  } finally {
    await b.close();
    await w.close();
  }
});

Deno.test("restart 45 s after a channel's 20: the new process waits the 15 s left", async () => {
  const w = await world(false);
  const first = w.base.monotonic();
  const a = await w.open(w.base);
  try {
    await w.sendTwenty(a, w.base);
  } finally {
    await a.close();
  }
  await w.base.advance(first + 45_000 - w.base.monotonic());
  const b = await w.open(w.base);
  try {
    const at = await w.oneMore(b);
    assert.ok(at >= first + 60_000, `the 21st went ${at - first} ms after the 1st`);
    assert.ok(at < first + 62_000, `no longer than the minute asks: ${at - first} ms`);
    assert.equal(w.bot.throttled, 0);
    withinMinute(w.bot.messages("@busy").map((m) => m.at));
  } finally {
    await b.close();
    await w.close();
  }
});

Deno.test("two live processes share the overall limit: 15 a second each", async () => {
  const w = await world(true);
  const a = await w.open(w.base);
  const b = await w.open(w.base);
  try {
    // A learns of B at its next step.
    await a.leases!.refresh();
    const start = w.base.monotonic();
    const sends = Array.from({ length: 16 }, (_, i) => a.outbox.send(`@chan_${i}`, message));
    for (let i = 0; i < 40 && w.bot.messages().length < 16; i++) {
      await w.base.advance(100);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await Promise.all(sends);
    const times = w.bot.messages().map((m) => m.at - start);
    assert.equal(times.filter((t) => t < 1_000).length, 15, `${times}`);
    assert.ok(times[15] >= 1_000);
  } finally {
    await a.close();
    await b.close();
    await w.close();
  }
});
