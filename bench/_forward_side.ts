/**
 * The `forward` loop in a process of its own, for bench/forward.ts, driven by a clock the
 * benchmark moves (tests/support/manual_clock.ts): the loop's timer fires when the clock
 * reaches it, and everything else (fetches, the database, the last-success file) is real.
 *
 *   deno run -A bench/_forward_side.ts tick PORT DIR FEEDS CONCURRENCY
 *     Every feed due each minute. Sets up (a first tick records every entry as seen, then a
 *     few warm-up ticks), prints "ready", then for each line read moves the clock to the next
 *     minute and prints the tick's milliseconds: from the loop's wake-up until every run it
 *     started has settled (forwarder.run resolved: results, run rows and last-success file
 *     flushed), as bench/_once_side.ts times a runOnce round.
 *
 *   deno run --v8-flags=--expose-gc -A bench/_forward_side.ts soak PORT DIR FEEDS CONCURRENCY TICKS
 *     Runs TICKS ticks back to back and prints one JSON line of memory readings at the start
 *     (after warm-up) and every so often, then at the end.
 */
import type { FeedSettings } from "../src/config/types.ts";
import { readFeed } from "../src/feeds/read.ts";
import { Loop } from "../src/forward/loop.ts";
import { ForwardMetrics } from "../src/forward/metrics.ts";
import { createLogger } from "../src/log/logger.ts";
import type { Outbox } from "../src/messenger/bot_api.ts";
import { Store } from "../src/store/db.ts";
import { LastSuccessFile } from "../src/store/last_success.ts";
import { ManualClock } from "../tests/support/manual_clock.ts";
import { benchFeeds, linesOf } from "./_once_side.ts";

const MINUTE = 60_000;
const WARM_UP = 3;

const nothingToSend: Outbox = {
  send: () => Promise.reject(new Error("steady state: nothing should be sent")),
};

/** A loop over `feeds` (every minute), set up and past its first tick. */
async function prepare(port: number, dataDir: string, count: number, concurrency: number) {
  const feeds: FeedSettings[] = benchFeeds(port, count).map((f) => ({ ...f, cron: "* * * * *" }));
  // Anything logged at info or above after start-up means a run was not steady (a failure, or
  // something sent): the benchmark stops rather than measure it.
  const logged: string[] = [];
  const logger = createLogger({
    format: "text",
    color: false,
    level: "info",
    write: (line) => logged.push(line),
  });
  const store = (await Store.open(`${dataDir}/feed_data`))!;
  const successLog = new LastSuccessFile(`${dataDir}/last_success.yml`);
  // Half a minute past a minute: the loop's next wake-up is the next minute, where every
  // feed falls due together.
  const clock = new ManualClock(Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE / 2);
  const loop = new Loop({
    forwarder: {
      read: readFeed,
      state: store,
      outbox: nothingToSend,
      successLog,
      logger,
      concurrency,
    },
    clock,
    logger,
    // As `courier forward` has, with or without --metrics.
    metrics: new ForwardMetrics(),
    lastSuccess: new Map(), // every feed runs at start: records every entry as seen
  });
  loop.start(feeds);
  await loop.runsEnded();
  logged.length = 0;
  /** Moves to the next minute (the loop wakes and runs every feed) and waits for the runs. */
  const tick = async () => {
    const t = performance.now();
    await clock.advance(MINUTE / 2);
    await loop.runsEnded();
    const elapsed = performance.now() - t;
    if (logged.length > 0) throw new Error(`not steady: ${logged[0]}`);
    await clock.advance(MINUTE / 2);
    return elapsed;
  };
  const close = async () => {
    await loop.stop(0);
    store.close();
  };
  return { tick, close, loop };
}

function memory() {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)![1]);
  const { heapUsed, heapTotal, external } = Deno.memoryUsage();
  return {
    rssMiB: kib("VmRSS") / 1024,
    // Anonymous memory (heaps, native buffers) apart from mapped files (code, SQLite's maps).
    anonMiB: kib("RssAnon") / 1024,
    fileMiB: kib("RssFile") / 1024,
    hwmMiB: kib("VmHWM") / 1024,
    heapMiB: heapUsed / 2 ** 20,
    heapTotalMiB: heapTotal / 2 ** 20,
    externalMiB: external / 2 ** 20,
    fds: [...Deno.readDirSync("/proc/self/fd")].length,
  };
}

/** Memory after a full collection, when the process runs with --expose-gc. */
function settledMemory() {
  (globalThis as { gc?: () => void }).gc?.();
  return memory();
}

if (import.meta.main) {
  const [mode, port, dataDir, feedCount, concurrency, ticks] = Deno.args;
  const side = await prepare(Number(port), dataDir, Number(feedCount), Number(concurrency));
  const encoder = new TextEncoder();
  const say = (line: string) => Deno.stdout.writeSync(encoder.encode(`${line}\n`));
  for (let i = 0; i < WARM_UP; i++) await side.tick();
  if (mode === "tick") {
    say("ready");
    for await (const _ of linesOf(Deno.stdin.readable)) say(String(await side.tick()));
  } else {
    const total = Number(ticks);
    const every = Math.max(1, Math.floor(total / 8));
    const start = performance.now();
    // The database with its write-ahead log (nothing checkpoints it here but SQLite itself).
    const dbMiB = () =>
      ["", "-wal"].reduce((sum, end) => {
        try {
          return sum + Deno.statSync(`${dataDir}/feed_data/courier.db${end}`).size / 2 ** 20;
        } catch {
          return sum;
        }
      }, 0);
    say(JSON.stringify({ tick: 0, dbMiB: dbMiB(), ...settledMemory() }));
    for (let i = 1; i <= total; i++) {
      await side.tick();
      if (i % every === 0 || i === total) {
        const seconds = (performance.now() - start) / 1000;
        say(
          JSON.stringify({
            tick: i,
            seconds,
            dbMiB: dbMiB(),
            ...memory(),
            settled: settledMemory(),
          }),
        );
      }
    }
  }
  await side.close();
}
