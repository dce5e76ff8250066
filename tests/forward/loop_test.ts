/**
 * The forward loop on the manual clock with the real parts around it: the Runtime (lock, SQLite
 * store, last-success file, Bot API client), local feed servers and the fake Bot API. Simulated
 * time moves a minute at a time, and each step waits for the runs it started to end (their I/O
 * is real), so no test waits for real time.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { parseSettings } from "../../src/config/load.ts";
import type { Settings } from "../../src/config/types.ts";
import { readFeed } from "../../src/feeds/read.ts";
import type { ReadOptions } from "../../src/feeds/read.ts";
import { Loop } from "../../src/forward/loop.ts";
import { ForwardMetrics } from "../../src/forward/metrics.ts";
import { runOnce } from "../../src/forward/once.ts";
import { Runtime } from "../../src/forward/runtime.ts";
import { type FakeBotApi, startFakeBotApi } from "../support/fake_bot_api.ts";
import {
  deferred,
  makeFeed,
  memoryLogger,
  RecordingOutbox,
  StubReader,
} from "../support/forward_stubs.ts";
import { readOnlyState } from "../../src/forward/dry_run.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { type FeedServer, rss, startFeedServer } from "../support/once_feeds.ts";
import { parseExposition, sampleValue } from "../support/prom_text.ts";

const TOKEN = "123456:TEST-token_abc";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** 2026-01-01T00:00:30Z: half a minute past a slot of every test schedule. */
const START = Date.UTC(2026, 0, 1, 0, 0, 30);

interface FeedSpec {
  name: string;
  url: string;
  cron: string;
}

function settingsFor(dir: string, feeds: FeedSpec[], token = TOKEN): Settings {
  const text = stringify({
    messenger_auth_token: token,
    data_dir: `${dir}/data`,
    feeds: feeds.map((f) => ({
      name: f.name,
      channel: `@chan_${f.name}`,
      url: f.url,
      cron: f.cron,
      type: "rss",
    })),
  });
  return parseSettings(text, `${dir}/config.yml`, dir);
}

/** Waits (really) for a condition that real I/O makes true; fails after 10 s. */
async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for: ${what}`);
}

/** A feed server whose answers wait until released (a hung site). */
function hangingServer(items: { id: string; title: string }[]) {
  let gate = deferred();
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    hits++;
    await gate.promise;
    return new Response(rss("slow", items), {
      headers: { "content-type": "application/rss+xml; charset=utf-8" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/slow.xml`,
    hits: () => hits,
    release: () => gate.resolve(),
    hangAgain: () => (gate = deferred()),
    close: async () => {
      gate.resolve();
      await server.shutdown();
    },
  };
}

interface Harness {
  dir: string;
  settings: Settings;
  /** Settings in this harness's data_dir for other feeds or another token (a reload). */
  settingsWith(feeds: FeedSpec[], token?: string): Settings;
  clock: ManualClock;
  feeds: FeedServer;
  bot: FakeBotApi;
  lines: string[];
  metrics: ForwardMetrics;
  runtime: Runtime;
  loop: Loop;
  /** Each read of a feed: its name (from the URL path) and the wall time. */
  reads: { feed: string; at: string }[];
  /** Moves simulated time forward a minute at a time, letting each minute's runs end. */
  advance(ms: number): Promise<void>;
  metric(name: string, labels?: Record<string, string>): number | undefined;
  close(): Promise<void>;
}

async function harness(
  feedsOf: (server: FeedServer) => FeedSpec[],
  options: {
    lastSuccess?: Map<string, Date>;
    token?: string;
    bot?: Parameters<typeof startFakeBotApi>[0];
    concurrency?: number;
  } = {},
): Promise<Harness> {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null, ...options.bot });
  const clock = new ManualClock(START);
  const { logger, lines } = memoryLogger();
  const metrics = new ForwardMetrics();
  const settings = settingsFor(dir, feedsOf(feeds), options.token);
  const runtime = await Runtime.open({
    settings,
    feeds: settings.feeds,
    dryRun: false,
    messengerApi: bot.url,
    logger,
    writeOut: () => {},
    clock,
    onMessengerResponse: (code) => metrics.recordMessengerResponse(code),
  });
  const reads: { feed: string; at: string }[] = [];
  const loop = new Loop({
    forwarder: {
      read: (o: ReadOptions) => {
        const path = new URL(o.urls[0]).pathname;
        reads.push({
          feed: path.replace(/^\/|\.xml$/g, ""),
          at: new Date(clock.now()).toISOString(),
        });
        return readFeed(o);
      },
      ...runtime.forwarderParts,
      logger,
      concurrency: options.concurrency ?? 4,
    },
    clock,
    logger,
    metrics,
    timezone: "UTC",
    lastSuccess: options.lastSuccess ?? new Map(),
  });
  let closed = false;
  return {
    dir,
    settings,
    settingsWith: (specs, token) => settingsFor(dir, specs, token),
    clock,
    feeds,
    bot,
    lines,
    metrics,
    runtime,
    loop,
    reads,
    async advance(ms) {
      for (let left = ms; left > 0; left -= MINUTE) {
        await clock.advance(Math.min(MINUTE, left));
        await loop.runsEnded();
      }
    },
    metric: (name, labels) => sampleValue(parseExposition(metrics.render()), name, labels),
    async close() {
      if (closed) return;
      closed = true;
      // The grace timer is the manual clock's: move it until the stop is done, so a test that
      // failed with a run still waiting ends with its failure instead of hanging here.
      let stopped = false;
      const stopping = loop.stop(0).then(() => stopped = true);
      for (let i = 0; i < 100 && !stopped; i++) {
        await clock.advance(1000);
        if (!stopped) await new Promise((r) => setTimeout(r, 5));
      }
      await stopping;
      await runtime.close();
      await feeds.close();
      await bot.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const titles = (bot: FakeBotApi, chat?: string) => bot.messages(chat).map((m) => m.bold[0]);
const at = (text: string) => new Date(text).toISOString();
const linesWith = (lines: string[], text: string) => lines.filter((l) => l.includes(text));

Deno.test("loop: over six simulated hours each feed runs at each of its slots, and only then", async () => {
  // Both succeeded after their latest slot: no catch-up, the first runs are the next slots.
  const last = new Map([["quarter", new Date(START - 1000)], ["hourly", new Date(START - 1000)]]);
  const h = await harness((s) => {
    s.set("/quarter.xml", [{ id: "q1", title: "Q one" }]);
    s.set("/hourly.xml", [{ id: "h1", title: "H one" }]);
    return [
      { name: "quarter", url: s.url("/quarter.xml"), cron: "*/15 * * * *" },
      { name: "hourly", url: s.url("/hourly.xml"), cron: "5 * * * *" },
    ];
  }, { lastSuccess: last });
  try {
    h.loop.start(h.settings.feeds);
    const scheduled = linesWith(h.lines, " msg=scheduled ");
    assert.equal(scheduled.length, 2);
    assert.match(
      scheduled[0],
      /feed=quarter cron="\*\/15 \* \* \* \*" next_run=2026-01-01T00:15:00.000Z/,
    );
    assert.match(
      scheduled[1],
      /feed=hourly cron="5 \* \* \* \*" next_run=2026-01-01T00:05:00.000Z/,
    );

    await h.advance(6 * HOUR);
    const times = (feed: string) => h.reads.filter((r) => r.feed === feed).map((r) => r.at);
    const expectQuarter = [];
    for (let m = 15; m <= 6 * 60; m += 15) {
      expectQuarter.push(new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString());
    }
    assert.deepEqual(times("quarter"), expectQuarter);
    assert.deepEqual(
      times("hourly"),
      [0, 1, 2, 3, 4, 5].map((hr) => at(`2026-01-01T0${hr}:05:00Z`)),
    );
    // The first run of each sent its entry (one INFO line each); the many no-op runs after
    // that logged nothing at info level, only at debug.
    assert.deepEqual(titles(h.bot), ["H one", "Q one"]);
    const info = h.lines.filter((l) => / level=info /.test(l) && !l.includes(" msg=scheduled "));
    assert.equal(info.length, 2, info.join("\n"));
    assert.match(info[0], /msg="feed sent" feed=hourly sent=1/);
    assert.equal(linesWith(h.lines, "nothing new").length, 23 + 5);
    assert.equal(h.metric("courier_feed_runs_total", { feed: "quarter", outcome: "ok" }), 24);
    assert.equal(h.metric("courier_feed_entries_sent_total", { feed: "hourly" }), 1);
    assert.equal(
      h.metric("courier_feed_next_run_timestamp_seconds", { feed: "hourly" }),
      Date.UTC(2026, 0, 1, 6, 5) / 1000,
    );
    assert.equal(h.metric("courier_messenger_responses_total", { code: "200" }), 2);
    assert.equal(h.loop.health().ok, true);
  } finally {
    await h.close();
  }
});

Deno.test("loop: catch-up at start runs a feed that missed its latest slot or never ran, not one that ran since", async () => {
  const h = await harness((s) => {
    for (const name of ["missed", "ran", "never"]) {
      s.set(`/${name}.xml`, [{ id: `${name}1`, title: `${name} one` }]);
    }
    return ["missed", "ran", "never"].map((name) => ({
      name,
      url: s.url(`/${name}.xml`),
      cron: "0 * * * *",
    }));
  }, {
    lastSuccess: new Map([
      // Its latest slot (00:00) is later than its last success: it missed it.
      ["missed", new Date(Date.UTC(2025, 11, 31, 23, 30))],
      // It succeeded after 00:00: it already ran in this period.
      ["ran", new Date(Date.UTC(2026, 0, 1, 0, 0, 10))],
    ]),
  });
  try {
    h.loop.start(h.settings.feeds);
    await h.loop.runsEnded();
    assert.deepEqual(h.reads.map((r) => r.feed), ["missed", "never"]);
    assert.ok(h.reads.every((r) => r.at === new Date(START).toISOString()));
    assert.match(linesWith(h.lines, "feed=ran")[0], /next_run=2026-01-01T01:00:00.000Z/);
    assert.match(
      linesWith(h.lines, "feed=never")[0],
      /next_run=2026-01-01T00:00:30.000Z catch_up=true/,
    );
    assert.deepEqual(titles(h.bot).sort(), ["missed one", "never one"]);

    await h.advance(HOUR);
    // At 01:00 all three run, once each (the third when one of its server's two slots is
    // free: the step that moved the clock to 01:00 may have gone on by then).
    assert.deepEqual(h.reads.slice(2).map((r) => `${r.feed}@${r.at.slice(0, 16)}`), [
      "missed@2026-01-01T01:00",
      "ran@2026-01-01T01:00",
      "never@2026-01-01T01:00",
    ]);
    assert.deepEqual(titles(h.bot, "@chan_ran"), ["ran one"]);
  } finally {
    await h.close();
  }
});

Deno.test("loop: a forward jump of the wall clock runs a due feed once; a backward step never runs a slot twice", async () => {
  const h = await harness((s) => {
    s.set("/q.xml", [{ id: "q1", title: "Q one" }]);
    return [{ name: "q", url: s.url("/q.xml"), cron: "*/15 * * * *" }];
  }, { lastSuccess: new Map([["q", new Date(START - 1000)]]) });
  try {
    h.loop.start(h.settings.feeds);
    await h.advance(15 * MINUTE); // 00:15:30, ran at 00:15
    assert.equal(h.reads.length, 1);

    // Suspended for five hours (twenty missed slots): on waking, it runs once.
    h.clock.jump(5 * HOUR);
    await h.advance(MINUTE);
    assert.equal(h.reads.length, 2);
    assert.equal(h.reads[1].at, at("2026-01-01T05:16:00Z"), "at the first wake after the jump");
    await h.advance(13 * MINUTE); // 05:29:30
    assert.equal(h.reads.length, 2, "no second run for the missed slots");
    await h.advance(MINUTE); // 05:30:30
    assert.equal(h.reads.at(-1)!.at, at("2026-01-01T05:30:00Z"));

    // An NTP step back by 40 min, to 04:51: the 05:00, 05:15 and 05:30 slots already had their
    // run (05:16 stood for 05:15) and are not run again; the next run is at 05:45.
    h.clock.jump(-40 * MINUTE);
    const before = h.reads.length;
    await h.advance(50 * MINUTE); // wall 04:51:30 -> 05:41:30
    assert.equal(h.reads.length, before, h.reads.slice(before).map((r) => r.at).join(","));
    await h.advance(5 * MINUTE); // 05:46:30
    assert.deepEqual(h.reads.slice(before).map((r) => r.at), [at("2026-01-01T05:45:00Z")]);
    assert.equal(h.loop.health().ok, true, "a jump makes the loop neither stalled nor late");
  } finally {
    await h.close();
  }
});

Deno.test("loop: a feed still running at its next slot is skipped (warned, counted); the others go on", async () => {
  const slow = hangingServer([{ id: "s1", title: "S one" }]);
  const h = await harness((s) => {
    s.set("/fast.xml", [{ id: "f1", title: "F one" }]);
    return [
      { name: "slow", url: slow.url, cron: "* * * * *" },
      { name: "fast", url: s.url("/fast.xml"), cron: "* * * * *" },
    ];
  }, {
    lastSuccess: new Map([["slow", new Date(START - 1000)], ["fast", new Date(START - 1000)]]),
  });
  try {
    h.loop.start(h.settings.feeds);
    // 00:01: both start; slow hangs. Only the fast one's run can end.
    await h.clock.advance(MINUTE);
    await until("slow asked", () => slow.hits() === 1);
    // The message is accepted before its run has recorded it and ended: wait for both.
    await until(
      "fast sent and done",
      () => h.bot.messages().length === 1 && h.loop.running.length === 1,
    );
    assert.deepEqual(h.loop.running, ["slow"]);
    // 00:02 and 00:03: slow is still going: skipped; fast runs.
    const fastRuns = () => h.reads.filter((r) => r.feed === "fast").length;
    for (const n of [2, 3]) {
      await h.clock.advance(MINUTE);
      await until(`fast ran ${n} times`, () => fastRuns() === n && h.loop.running.length === 1);
    }
    const skips = linesWith(h.lines, "previous run still going");
    assert.equal(skips.length, 2);
    assert.match(skips[0], /level=warn .*feed=slow slot=2026-01-01T00:02:00.000Z/);
    assert.equal(h.metric("courier_feed_overlap_skips_total", { feed: "slow" }), 2);
    assert.equal(slow.hits(), 1, "never started twice");

    slow.release();
    await h.loop.runsEnded();
    assert.deepEqual(titles(h.bot), ["F one", "S one"]);
    // 00:04: both run again, normally.
    await h.advance(MINUTE);
    assert.equal(slow.hits(), 2);
    assert.equal(linesWith(h.lines, "previous run still going").length, 2);
  } finally {
    await h.close();
    await slow.close();
  }
});

Deno.test("loop: feeds still running at their next slot are one warning; feeds still waiting for a slot none", async () => {
  const slow = hangingServer([{ id: "s1", title: "S one" }]);
  const h = await harness((s) => {
    s.set("/fast.xml", [{ id: "f1", title: "F one" }]);
    return [
      // One server: with 4 slots it may hold 2, so slowC waits for one of them.
      { name: "slowA", url: `${slow.url}?a`, cron: "* * * * *" },
      { name: "slowB", url: `${slow.url}?b`, cron: "* * * * *" },
      { name: "slowC", url: `${slow.url}?c`, cron: "* * * * *" },
      { name: "fast", url: s.url("/fast.xml"), cron: "* * * * *" },
    ];
  }, { concurrency: 4 });
  try {
    h.loop.start(h.settings.feeds);
    await until(
      "slowA and slowB asked, fast done",
      () => slow.hits() === 2 && h.bot.messages().length === 1 && h.loop.running.length === 3,
    );
    // 00:01: slowA and slowB are still fetching; slowC never started; fast runs again.
    const fastRuns = () => h.reads.filter((r) => r.feed === "fast").length;
    await h.clock.advance(MINUTE);
    await until("fast ran twice", () => fastRuns() === 2 && h.loop.running.length === 3);
    const skips = h.lines.filter((l) => l.includes("still going"));
    assert.equal(skips.length, 1, skips.join("\n"));
    assert.match(
      skips[0],
      /level=warn msg="previous runs still going; skipping these" count=2 feeds=slowA,slowB slot=2026-01-01T00:01:00.000Z/,
    );
    assert.equal(h.metric("courier_feed_overlap_skips_total", { feed: "slowA" }), 1);
    assert.equal(h.metric("courier_feed_overlap_skips_total", { feed: "slowC" }), 0);
    assert.equal(slow.hits(), 2, "slowC is still waiting, not started");
    slow.release();
    await h.loop.runsEnded();
    assert.equal(slow.hits(), 3);
    assert.deepEqual(titles(h.bot).sort(), ["F one", "S one", "S one", "S one"]);
  } finally {
    await h.close();
    await slow.close();
  }
});

Deno.test("loop: a failing feed is logged once per run with URL and step, retried at its next slot, and affects no other", async () => {
  const h = await harness((s) => {
    s.fail("/broken.xml", 500);
    s.set("/good.xml", [{ id: "g1", title: "G one" }]);
    return [
      { name: "broken", url: s.url("/broken.xml"), cron: "*/5 * * * *" },
      { name: "good", url: s.url("/good.xml"), cron: "*/5 * * * *" },
    ];
  });
  try {
    h.loop.start(h.settings.feeds);
    await h.loop.runsEnded();
    assert.deepEqual(titles(h.bot), ["G one"]);
    const failed = linesWith(h.lines, "feed failed");
    assert.equal(failed.length, 1);
    assert.match(
      failed[0],
      /level=error msg="feed failed" feed=broken url=http:\/\/127\.0\.0\.1:\d+\/broken\.xml step=fetch error=.*500/,
    );

    await h.advance(4 * MINUTE);
    assert.equal(h.feeds.hits("/broken.xml"), 1, "not retried before its next slot");
    await h.advance(MINUTE);
    assert.equal(h.feeds.hits("/broken.xml"), 2);
    assert.equal(linesWith(h.lines, "feed failed").length, 2);

    h.feeds.set("/broken.xml", [{ id: "b1", title: "B one" }]);
    await h.advance(5 * MINUTE);
    assert.deepEqual(titles(h.bot, "@chan_broken"), ["B one"]);
    assert.equal(h.metric("courier_feed_runs_total", { feed: "broken", outcome: "failed" }), 2);
    assert.equal(h.metric("courier_feed_runs_total", { feed: "broken", outcome: "ok" }), 1);
    assert.equal(h.metric("courier_feed_runs_total", { feed: "good", outcome: "ok" }), 3);
  } finally {
    await h.close();
  }
});

Deno.test("loop: a 401 is logged at every attempt and the loop goes on; a reload with the right token recovers", async () => {
  const wrong = "123456:WRONG-token_xyz";
  const h = await harness((s) => {
    s.set("/news.xml", [{ id: "n1", title: "N one" }, { id: "n2", title: "N two", minute: 1 }]);
    return [{ name: "news", url: s.url("/news.xml"), cron: "*/5 * * * *" }];
  }, { token: wrong });
  try {
    h.loop.start(h.settings.feeds);
    await h.loop.runsEnded();
    await h.advance(5 * MINUTE);
    const refused = linesWith(h.lines, "messenger refused the bot");
    assert.equal(refused.length, 2, "one error per attempt");
    assert.match(refused[0], /level=error .*feed=news .*401/);
    assert.equal(h.metric("courier_messenger_responses_total", { code: "401" }), 2);
    assert.equal(h.bot.messages().length, 0);
    assert.equal(h.loop.health().ok, true);

    // The user fixes the token and reloads: what the CLI does on SIGHUP.
    const fixed = h.settingsWith(
      [{ name: "news", url: h.feeds.url("/news.xml"), cron: "*/5 * * * *" }],
      TOKEN,
    );
    const { messengerChanged } = await h.runtime.reconfigure(fixed);
    assert.equal(messengerChanged, true);
    assert.deepEqual(h.loop.reload(fixed.feeds), { added: [], changed: [], removed: [] });
    await h.advance(5 * MINUTE);
    assert.deepEqual(titles(h.bot), ["N one", "N two"]);
    for (const line of h.lines) {
      assert.ok(!line.includes("WRONG-token") && !line.includes("TEST-token"), line);
    }
  } finally {
    await h.close();
  }
});

Deno.test("loop: reload adds (with catch-up), changes and removes feeds; a run under way keeps its old settings", async () => {
  const slow = hangingServer([{ id: "s1", title: "S one" }]);
  const h = await harness((s) => {
    s.set("/kept.xml", [{ id: "k1", title: "K one" }]);
    return [
      { name: "kept", url: s.url("/kept.xml"), cron: "0 * * * *" },
      { name: "slow", url: slow.url, cron: "0 * * * *" },
    ];
  });
  try {
    h.loop.start(h.settings.feeds);
    await until("slow asked", () => slow.hits() === 1);
    h.feeds.set("/added.xml", [{ id: "a1", title: "A one" }]);
    const next = h.settingsWith([
      { name: "kept", url: h.feeds.url("/kept.xml"), cron: "30 * * * *" },
      { name: "added", url: h.feeds.url("/added.xml"), cron: "0 * * * *" },
    ]);
    const changes = h.loop.reload(next.feeds);
    assert.deepEqual(changes, { added: ["added"], changed: ["kept"], removed: ["slow"] });
    // The added feed never ran: it catches up at once. The removed one finishes its run.
    await until("added sent", () => titles(h.bot).includes("A one"));
    slow.release();
    await h.loop.runsEnded();
    assert.ok(titles(h.bot).includes("S one"), "the run under way finished");
    await h.advance(HOUR);
    assert.equal(slow.hits(), 1, "a removed feed does not run again");
    assert.deepEqual(
      h.reads.filter((r) => r.feed === "kept").map((r) => r.at),
      [at("2026-01-01T00:00:30Z"), at("2026-01-01T00:30:00Z")],
      "kept: caught up at start, then on its new schedule",
    );
    const rendered = h.metrics.render();
    assert.ok(!rendered.includes('feed="slow"'), "a removed feed's series go once its run ended");
  } finally {
    await h.close();
    await slow.close();
  }
});

Deno.test("loop: stop lets a run under way finish within the grace period", async () => {
  const slow = hangingServer([{ id: "s1", title: "S one" }, { id: "s2", title: "S two" }]);
  const h = await harness(() => [{ name: "slow", url: slow.url, cron: "* * * * *" }]);
  try {
    h.loop.start(h.settings.feeds);
    await until("slow asked", () => slow.hits() === 1);
    let stopped = false;
    const stopping = h.loop.stop(30_000).then(() => stopped = true);
    await h.clock.advance(20_000); // within the grace period, past the next slot
    assert.equal(slow.hits(), 1, "no new run after stop");
    assert.equal(stopped, false);
    // The grace timer is the loop's; it was cleared, not left pending.
    slow.release();
    await stopping;
    assert.equal(stopped, true);
    assert.deepEqual(titles(h.bot), ["S one", "S two"]);
    assert.equal(h.metric("courier_feed_runs_total", { feed: "slow", outcome: "ok" }), 1);
    assert.equal(h.clock.pending, 0, "no timer of the loop left behind");
  } finally {
    await h.close();
    await slow.close();
  }
});

Deno.test("loop: past the grace period a run stops before its next send; nothing unsent is marked sent", async () => {
  const second = deferred();
  let arrived = 0;
  const h = await harness((s) => {
    s.set("/news.xml", [
      { id: "n1", title: "N one", minute: 1 },
      { id: "n2", title: "N two", minute: 2 },
      { id: "n3", title: "N three", minute: 3 },
    ]);
    return [{ name: "news", url: s.url("/news.xml"), cron: "0 * * * *" }];
  }, {
    bot: {
      beforeMessage: async (request) => {
        arrived = request;
        if (request === 2) await second.promise;
      },
    },
  });
  try {
    h.loop.start(h.settings.feeds);
    await until("the second message is at the messenger", () => arrived === 2);
    const stopping = h.loop.stop(10_000);
    await h.clock.advance(10_000); // the grace period ends with the send still under way
    assert.match(linesWith(h.lines, "after the grace period")[0], /level=warn .*feeds=news/);
    second.resolve(); // the messenger answers: that message was posted, so it is marked sent
    await stopping;
    assert.deepEqual(titles(h.bot), ["N one", "N two"]);
    assert.equal(h.metric("courier_feed_runs_total", { feed: "news", outcome: "aborted" }), 1);
    assert.match(linesWith(h.lines, "feed failed")[0], /step=send error="stopped: /);
    await h.runtime.close();

    // The next run sends only what was not accepted: no entry lost, none twice.
    const runtime = await Runtime.open({
      settings: h.settings,
      feeds: h.settings.feeds,
      dryRun: false,
      messengerApi: h.bot.url,
      logger: memoryLogger().logger,
      writeOut: () => {},
    });
    try {
      const summary = await runOnce({
        feeds: h.settings.feeds,
        read: readFeed,
        ...runtime.forwarderParts,
        logger: memoryLogger().logger,
        concurrency: 1,
      });
      assert.equal(summary.results[0].sent, 1);
    } finally {
      await runtime.close();
    }
    assert.deepEqual(titles(h.bot), ["N one", "N two", "N three"]);
  } finally {
    await h.close();
  }
});

Deno.test("loop: the maintenance hook runs after start and every 24 h; checkpoint after runs that wrote", async () => {
  let maintenance = 0;
  let checkpoints = 0;
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const clock = new ManualClock(START);
  const { logger } = memoryLogger();
  const settings = settingsFor(dir, [{ name: "n", url: feeds.url("/n.xml"), cron: "0 * * * *" }]);
  feeds.set("/n.xml", [{ id: "n1", title: "N one" }]);
  const runtime = await Runtime.open({
    settings,
    feeds: settings.feeds,
    dryRun: false,
    messengerApi: bot.url,
    logger,
    writeOut: () => {},
    clock,
  });
  const loop = new Loop({
    forwarder: {
      read: readFeed,
      ...runtime.forwarderParts,
      logger,
      concurrency: 2,
    },
    clock,
    logger,
    timezone: "UTC",
    lastSuccess: new Map(),
    maintenance: () => {
      maintenance++;
      return Promise.resolve();
    },
    checkpoint: () => {
      checkpoints++;
      return Promise.resolve();
    },
  });
  try {
    loop.start(settings.feeds);
    await loop.runsEnded();
    assert.equal(maintenance, 1);
    assert.equal(checkpoints, 1, "the catch-up run sent an entry");
    for (let i = 0; i < 48 * 60; i++) {
      await clock.advance(MINUTE);
      await loop.runsEnded();
    }
    assert.equal(maintenance, 3, "after start, then at 24 h and 48 h");
    assert.equal(checkpoints, 1, "48 runs that found nothing new wrote no entry");
  } finally {
    await loop.stop(0);
    await runtime.close();
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loop: a dry run prints each entry once over many ticks, and a new one when it appears", async () => {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const clock = new ManualClock(START);
  const { logger } = memoryLogger();
  const printed: string[] = [];
  feeds.set("/n.xml", [{ id: "n1", title: "N one" }]);
  const settings = settingsFor(dir, [{ name: "n", url: feeds.url("/n.xml"), cron: "* * * * *" }]);
  const runtime = await Runtime.open({
    settings,
    feeds: settings.feeds,
    dryRun: true,
    messengerApi: "http://127.0.0.1:9/",
    logger,
    writeOut: (text) => printed.push(text),
    clock,
  });
  const loop = new Loop({
    forwarder: {
      read: readFeed,
      ...runtime.forwarderParts,
      logger,
      concurrency: 2,
      serialize: true,
    },
    clock,
    logger,
    timezone: "UTC",
    lastSuccess: new Map(),
  });
  try {
    loop.start(settings.feeds);
    await loop.runsEnded();
    for (let i = 0; i < 5; i++) {
      await clock.advance(MINUTE);
      await loop.runsEnded();
    }
    feeds.set("/n.xml", [{ id: "n1", title: "N one" }, { id: "n2", title: "N two" }]);
    for (let i = 0; i < 5; i++) {
      await clock.advance(MINUTE);
      await loop.runsEnded();
    }
    assert.equal(printed.length, 2, printed.join(""));
    assert.match(printed[0], /<b>N one<\/b>/);
    assert.match(printed[1], /<b>N two<\/b>/);
    assert.equal(feeds.hits("/n.xml"), 11);
  } finally {
    await loop.stop(0);
    await runtime.close();
    await feeds.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A clock whose timers never fire: the event loop of a process that is stuck. */
class StuckClock extends ManualClock {
  override setTimeout(): number {
    return -1;
  }
}

Deno.test("loop: health is ok while ticks come as planned, stalled once the planned tick is overdue", async () => {
  const clock = new StuckClock(START);
  const { logger } = memoryLogger();
  const loop = new Loop({
    forwarder: {
      read: new StubReader().read,
      state: readOnlyState(null),
      outbox: new RecordingOutbox(),
      successLog: { record: () => Promise.resolve() },
      logger,
      concurrency: 1,
    },
    clock,
    logger,
    timezone: "UTC",
    lastSuccess: new Map([["a", new Date(START)]]),
  });
  loop.start([makeFeed("a", { cron: "0 * * * *" })]);
  assert.deepEqual(loop.health(30_000), {
    ok: true,
    feeds: 1,
    lastTick: new Date(START),
  });
  // The loop planned to look again within a minute; 90 s later it has not.
  await clock.advance(90_000);
  assert.equal(loop.health(30_000).ok, true, "30 s late is within the slack");
  await clock.advance(1);
  assert.equal(loop.health(30_000).ok, false);
  await loop.stop(0);
  assert.equal(loop.health(30_000).ok, true, "a stopped loop plans no tick");
});

Deno.test("loop: a 429 holding one channel for 100000 s holds only that channel; the others go on, and a stop ends the wait", async () => {
  const h = await harness((s) => {
    s.set("/held.xml", [{ id: "h1", title: "H one" }]);
    s.set("/free.xml", [{ id: "f1", title: "F one" }]);
    return [
      { name: "held", url: s.url("/held.xml"), cron: "* * * * *" },
      { name: "free", url: s.url("/free.xml"), cron: "* * * * *" },
    ];
  }, {
    lastSuccess: new Map([["held", new Date(START - 1000)], ["free", new Date(START - 1000)]]),
  });
  try {
    h.bot.inject({ kind: "429", chat: "@chan_held", retryAfter: 100_000 });
    h.loop.start(h.settings.feeds);
    await h.clock.advance(MINUTE);
    await until(
      "free sent, held waiting",
      () => h.bot.throttled === 1 && h.bot.messages().length === 1 && h.loop.running.length === 1,
    );
    assert.deepEqual(h.loop.running, ["held"]);
    // Later ticks: the free channel's feed runs again (a new entry goes) while held still waits.
    h.feeds.set("/free.xml", [{ id: "f1", title: "F one" }, { id: "f2", title: "F two" }]);
    await h.clock.advance(MINUTE);
    // The message is accepted before its run has recorded it and ended: wait for both.
    await until(
      "free sent again and done",
      () => h.bot.messages().length === 2 && h.loop.running.length === 1,
    );
    assert.deepEqual(titles(h.bot, "@chan_free"), ["F one", "F two"]);
    assert.deepEqual(titles(h.bot, "@chan_held"), []);
    assert.deepEqual(h.loop.running, ["held"]);
    // No bound in forward: the held feed has not failed, it waits; a stop ends the wait.
    assert.equal(linesWith(h.lines, "rate limited by the messenger").length, 0);
    let stopped = false;
    const stopping = h.loop.stop(0).then(() => stopped = true);
    // The grace timer (0 ms) and the state's write timers are the manual clock's: move it a
    // second at a time until the stop is done (a wait that the stop did not end would need
    // far more than these two minutes: the hold is 100000 s).
    for (let i = 0; i < 120 && !stopped; i++) {
      await h.clock.advance(1000);
      if (!stopped) await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(stopped, "the stop ended the wait for the held channel");
    await stopping;
    assert.deepEqual(h.loop.running, []);
    assert.deepEqual(titles(h.bot, "@chan_held"), []);
    const sent = await h.runtime.store!.query(
      "SELECT entry_id FROM entries WHERE feed = 'held' AND status = 'sent'",
    );
    assert.deepEqual(sent, []);
  } finally {
    await h.close();
  }
});
