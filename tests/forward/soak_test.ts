/**
 * A soak of the forward loop: thousands of one-minute ticks over dozens of feeds on the manual
 * clock, with the real parts (Runtime with its SQLite store and last-success file, local feed
 * servers answering 200, 304 and errors, the fake Bot API). At the end every entry was sent
 * exactly once, and what the process holds (file descriptors, timers, runs in flight, heap
 * after a forced GC) is no more than it was early in the soak, within a stated bound.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { parseSettings } from "../../src/config/load.ts";
import { readFeed } from "../../src/feeds/read.ts";
import { Loop } from "../../src/forward/loop.ts";
import { ForwardMetrics } from "../../src/forward/metrics.ts";
import { Runtime } from "../../src/forward/runtime.ts";
import { createLogger } from "../../src/log/logger.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { type FeedItem, type FeedServer, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";
const MINUTE = 60_000;
const TICKS = 3_000;
/** Where the "early" resource reading is taken, once every kind of feed has run many times. */
const EARLY_TICK = 500;
const SERVERS = 4;
const FEEDS = 40;
/** A rotating feed shows its newest entries only, as most sites do. */
const WINDOW = 25;
const MB = 1024 * 1024;
/** The heap (this isolate's, after a full GC) may grow this much from EARLY_TICK to the end. */
const HEAP_BOUND = 30 * MB;
/**
 * RSS is the whole process's: in `deno test --parallel` other test files run in it too, so
 * its bound is wider.
 */
/** Keep-alive connections come and go; more than this many new descriptors is a leak. */
const FD_SLACK = 8;

type Kind = "changing" | "static" | "failing" | "flaky" | "slow";

interface SoakFeed {
  name: string;
  kind: Kind;
  cron: string;
  path: string;
  server: FeedServer;
  /** Every item ever published, oldest first. */
  published: FeedItem[];
  /** A new item every this many ticks (0: never). */
  every: number;
  /** Staggers its changes and outages. */
  offset: number;
  /** What the server was last told (a new ETag each time: only on a change). */
  served: string;
}

/** Ten kinds of feed, repeated: most change every few ticks, some never (304), some fail. */
function plan(index: number): { kind: Kind; cron: string; every: number } {
  switch (index % 10) {
    case 0:
      // Two read every minute, two every other minute.
      return {
        kind: "changing",
        cron: index < 20 ? "* * * * *" : "*/2 * * * *",
        every: 8 + (index % 4),
      };
    case 1:
      return { kind: "changing", cron: "*/3 * * * *", every: 10 };
    case 2:
      // Changes faster than it is read: several new entries a run.
      return { kind: "changing", cron: "*/10 * * * *", every: 6 };
    case 3:
      return { kind: "changing", cron: "*/4 * * * *", every: 12 };
    case 4:
      return { kind: "static", cron: "*/4 * * * *", every: 0 };
    case 5:
      return { kind: "static", cron: "*/5 * * * *", every: 0 };
    case 6:
      return { kind: "failing", cron: "*/6 * * * *", every: 7 };
    case 7:
      // Down 20 minutes in every 200; what it published meanwhile is sent when it is back.
      return { kind: "flaky", cron: "*/5 * * * *", every: 12 };
    default:
      return { kind: "slow", cron: "*/15 * * * *", every: 30 };
  }
}

interface Reading {
  tick: number;
  rss: number;
  heapUsed: number;
  fds: number;
  timers: number;
  inFlight: number;
  messages: number;
}

/** TCP socket inodes with a local or remote port among `ports` (IPv4 and IPv6). */
function socketsOn(ports: Set<number>): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = Deno.readTextFileSync(table);
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const port = (address: string) => parseInt(address.split(":")[1], 16);
      if (ports.has(port(cols[1])) || ports.has(port(cols[2]))) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/**
 * This test's open descriptors: files under `dir` (the database, its WAL, the state files)
 * and sockets to or from its servers. Other test files may share the process.
 */
function descriptorsOf(dir: string, ports: Set<number>): number {
  const sockets = socketsOn(ports);
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    let target = "";
    try {
      target = Deno.readLinkSync(`/proc/self/fd/${entry.name}`);
    } catch {
      continue; // closed meanwhile (the directory listing's own descriptor)
    }
    const socket = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (target.startsWith(dir) || (socket !== undefined && sockets.has(socket))) count++;
  }
  return count;
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

Deno.test("soak: 3,000 one-minute ticks over 40 feeds: every entry sent once, resources flat", async () => {
  // Real SQLite and state files, on tmpfs where there is one: the soak is about what the
  // process holds, and the disk's fsync time would only make it slow.
  const dir = await Deno.makeTempDir(await isDir("/dev/shm") ? { dir: "/dev/shm" } : {});
  const servers = Array.from({ length: SERVERS }, () => startFeedServer());
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 30));
  // Counted, not kept: a months-long process keeps no log in memory, and neither may the test.
  const logged = { warn: 0, error: 0, info: 0, last: "" };
  const logger = createLogger({
    format: "text",
    color: false,
    level: "info",
    write: (line) => {
      const level = / level=(info|warn|error) /.exec(line)?.[1];
      if (level === "warn") logged.warn++;
      else if (level === "error") logged.error++;
      else logged.info++;
      logged.last = line;
    },
  });
  const metrics = new ForwardMetrics();

  const feeds: SoakFeed[] = Array.from({ length: FEEDS }, (_, i) => {
    const { kind, cron, every } = plan(i);
    const name = `f${String(i).padStart(2, "0")}`;
    return {
      name,
      kind,
      cron,
      every,
      offset: i,
      served: "",
      path: `/${name}.xml`,
      server: servers[i % SERVERS],
      published: [],
    };
  });
  let serial = 0;
  const publish = (feed: SoakFeed) => {
    serial++;
    // The minute orders entries oldest first; the serial makes every title unique.
    feed.published.push({
      id: `${feed.name}-${serial}`,
      title: `${feed.name} #${serial}`,
      minute: serial,
    });
  };
  const serve = (feed: SoakFeed, tick: number, { comeBack = false } = {}) => {
    // Each flaky feed is down at its own time, so their comebacks do not pile up in one tick.
    const phase = (tick + feed.offset * 7) % 200;
    const down = feed.kind === "failing" ||
      (feed.kind === "flaky" && !comeBack && phase >= 100 && phase < 120);
    const state = down ? "down" : `up:${feed.published.length}`;
    if (state === feed.served) return;
    feed.served = state;
    if (down) feed.server.fail(feed.path, feed.kind === "failing" ? 500 : 503);
    else feed.server.set(feed.path, feed.published.slice(-WINDOW));
  };
  // Feeds start empty: the catch-up finds nothing, and no tick ever has more messages than
  // Telegram's limits allow at once (30 overall, 20 a chat a minute). The runtime's pacer
  // would otherwise wait on the manual clock, which only moves between ticks.
  for (const feed of feeds) serve(feed, 0);

  // Five feeds a channel: config order holds on a shared channel.
  const settings = parseSettings(
    stringify({
      messenger_auth_token: TOKEN,
      data_dir: `${dir}/data`,
      feeds: feeds.map((f, i) => ({
        name: f.name,
        channel: `@soak_${i % 8}`,
        url: f.server.url(f.path),
        cron: f.cron,
        type: "rss",
      })),
    }),
    `${dir}/config.yml`,
    dir,
  );
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
  const loop = new Loop({
    forwarder: {
      read: readFeed,
      ...runtime.forwarderParts,
      logger,
      concurrency: 8,
    },
    clock,
    logger,
    metrics,
    timezone: "UTC",
    lastSuccess: new Map(),
  });

  const ports = new Set(
    [...servers.map((server) => server.url("/")), bot.url].map((url) => Number(new URL(url).port)),
  );
  const read = (tick: number): Reading => {
    const gc = (globalThis as { gc?: () => void }).gc;
    assert.ok(gc, "a full collection is available: deno test --v8-flags=--expose-gc (the task's)");
    gc();
    const { rss, heapUsed } = Deno.memoryUsage();
    return {
      tick,
      rss,
      heapUsed,
      fds: descriptorsOf(dir, ports),
      timers: clock.pending,
      inFlight: loop.running.length,
      messages: bot.messages().length,
    };
  };
  const show = (r: Reading) =>
    console.log(
      `soak tick ${r.tick}: rss ${mb(r.rss)}, heap used ${mb(r.heapUsed)}, fds ${r.fds}, ` +
        `timers ${r.timers}, runs in flight ${r.inFlight}, messages ${r.messages}`,
    );

  let stopped = false;
  // A bound on the real I/O, not a synchronisation: a run waiting on the manual clock (which
  // moves only between ticks) would otherwise hang the test instead of failing it.
  let stuck = false;
  const watchdog = setTimeout(() => stuck = true, 120_000);
  const ticked = async () => {
    await loop.runsEnded();
    assert.ok(!stuck, `runs did not end: ${loop.running.join(",")}`);
  };
  try {
    const start = read(0);
    show(start);
    loop.start(settings.feeds);
    await ticked();
    let early: Reading | null = null;
    for (let tick = 1; tick <= TICKS; tick++) {
      for (const feed of feeds) {
        if (feed.every > 0 && (tick + feed.offset) % feed.every === 0) publish(feed);
        serve(feed, tick);
      }
      await clock.advance(MINUTE);
      await ticked();
      if (tick === EARLY_TICK) show(early = read(tick));
    }
    // Every flaky feed is up again and every feed has had a slot since its last item.
    for (let tick = TICKS + 1; tick <= TICKS + 15; tick++) {
      for (const feed of feeds) serve(feed, tick, { comeBack: true });
      await clock.advance(MINUTE);
      await ticked();
    }
    const end = read(TICKS + 15);
    show(end);
    // What the fake Bot API keeps of every message is the test's, not courier's, memory.
    console.log(
      `soak: the fake Bot API keeps every message; those since tick ${EARLY_TICK} take at least ` +
        mb(JSON.stringify(bot.messages().slice(early?.messages ?? 0)).length * 2),
    );

    // Every entry of every reachable feed, once, oldest first; none of the failing ones.
    const bold = bot.messages().map((m) => m.bold[0]);
    assert.equal(new Set(bold).size, bold.length, "a message was sent twice");
    let expected = 0;
    for (const feed of feeds) {
      const got = bold.filter((title) => title.startsWith(`${feed.name} #`));
      const want = feed.kind === "failing" ? [] : feed.published.map((item) => item.title);
      assert.deepEqual(got, want, `feed ${feed.name} (${feed.kind})`);
      expected += want.length;
    }
    assert.equal(bold.length, expected);
    assert.ok(expected > 3_000, `only ${expected} entries published`);
    // The static feeds were answered 304 after their first fetch, and the failing ones failed.
    const staticFeed = feeds.find((f) => f.kind === "static")!;
    assert.equal(staticFeed.cron, "*/4 * * * *");
    assert.equal(staticFeed.server.hits(staticFeed.path), 1 + Math.floor((TICKS + 15) / 4));
    assert.ok(logged.error >= TICKS / 6, `failing runs were logged (${logged.error})`);

    // Resources: no descriptor, timer or run accumulates, and memory stays within the bound.
    assert.ok(early);
    // The descriptors counted are this test's: at least each server's listening socket.
    assert.ok(start.fds >= SERVERS + 1, `only ${start.fds} descriptors of this test found`);
    assert.equal(end.inFlight, 0);
    assert.ok(end.timers <= early.timers, `timers ${early.timers} -> ${end.timers}`);
    assert.ok(end.fds <= early.fds + FD_SLACK, `fds ${early.fds} -> ${end.fds}`);
    assert.ok(
      end.heapUsed - early.heapUsed <= HEAP_BOUND,
      `heap used ${mb(early.heapUsed)} -> ${mb(end.heapUsed)}`,
    );
    // Not the process's RSS: under `deno test --parallel` other test files run in the same
    // process (CI saw 372 -> 502 MB while this file's heap stayed flat). It is printed above;
    // the bench measures a process of its own (`deno task bench forward`).

    await loop.stop(0);
    stopped = true;
    assert.equal(clock.pending, 0, "a stopped loop leaves no timer behind");
  } finally {
    clearTimeout(watchdog);
    if (!stopped) await loop.stop(0);
    await runtime.close();
    for (const server of servers) await server.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});
