/**
 * `courier forward`, the process that runs for months:
 *
 * 1. Idle at scale: 5,000 feeds configured, none due (`0 0 1 1 *`, each with a last success
 *    after its latest slot, so nothing catches up), the real process started as a user would
 *    (`deno run -A main.ts forward -c FILE`): start-up to the `forwarding feeds=N` line, RSS,
 *    then CPU time (user + sys from /proc/PID/stat) over 60 s windows of wall time; SIGTERM
 *    and exit 0.
 * 2. One tick of 500 local feeds falling due in the same minute, steady state (every entry
 *    seen; the server sends validators and answers 304), in-process on a clock the benchmark
 *    moves (bench/_forward_side.ts), against an in-process runOnce over the same feeds and an
 *    equal state (bench/_once_side.ts), each side in its own process, rounds interleaved.
 * 3. A soak: thousands of ticks of 50 feeds in-process on the moved clock; memory at the
 *    start and along the way.
 *
 * 4. Peak (issue 28): 5,000 local feeds, every one due every minute, the real process: the
 *    first tick (at start: every feed's first sighting) and steady ticks (304s); VmHWM of the
 *    whole process, start-up's config parse included, and CPU per tick.
 * 5. Hours (issue 28): the real process on real minutes, 50 feeds each gaining an entry a
 *    minute, posting to the fake Bot API; VmRSS every 5 minutes for
 *    COURIER_BENCH_SOAK_MINUTES (default 120), the one at 30 minutes against the last.
 *
 * Targets (issue 12): start-up ≤ 2 s, CPU ≤ 1 s per 60 s, RSS ≤ 120 MB; tick ≤ 1.3× once.
 * Targets (issue 28): VmHWM ≤ 120 MB with 5,000 feeds due at once (over
 * COURIER_BENCH_PEAK_RUNS processes, default 3), CPU per tick stated; RSS at the end of the
 * hours within 10 MB of the RSS at 30 minutes. `COURIER_BENCH_PARTS=peak,hours` runs those.
 */
import { DatabaseSync } from "node:sqlite";
import type { FeedSettings } from "../src/config/types.ts";
import { formatRfc3339 } from "../src/time/rfc3339.ts";
import { ENTRIES, interleave, median, ms, Side, startFeedServer, writeConfig } from "./_feeds.ts";
import { benchFeeds, linesOf } from "./_once_side.ts";
import { courierArgs, PRODUCT_ENV } from "../tests/support/product.ts";

const FORWARD_SIDE = new URL("./_forward_side.ts", import.meta.url).pathname;
const ONCE_SIDE = new URL("./_once_side.ts", import.meta.url).pathname;

/**
 * COURIER_BENCH_QUICK=1: a few rounds of everything, to try the benchmark itself out.
 * COURIER_BENCH_PARTS=idle,tick,peak,soak,hours: which parts to run (default all).
 */
const QUICK = Deno.env.get("COURIER_BENCH_QUICK") === "1";

const IDLE_FEEDS = 5_000;
/** Start-ups measured (after one unmeasured first start that creates the database). */
const STARTS = QUICK ? 2 : 7;
const CPU_WINDOW_MS = QUICK ? 5_000 : 60_000;
const CPU_WINDOWS = QUICK ? 1 : 3;

const TICK_FEEDS = 500;
// In-process rounds are cheap and this 2-core VM is noisy: enough of them for a stable median.
const TICK_ROUNDS = QUICK ? 3 : 31;
const CONCURRENCY = 8;

const SOAK_FEEDS = 50;
const SOAK_TICKS = QUICK ? 80 : 6_000;

const MiB = 2 ** 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(): Promise<void> {
  const cores = navigator.hardwareConcurrency;
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  console.log(
    `courier forward (${cores} cores, load average ${load} at start: the machine is shared, ` +
      `so every figure is a median of repeated runs unless it says otherwise)`,
  );
  const parts = Deno.env.get("COURIER_BENCH_PARTS")?.split(",") ??
    ["idle", "tick", "peak", "soak", "hours"];
  if (parts.includes("idle")) await idle();
  if (parts.includes("tick")) await tick();
  if (parts.includes("peak")) await peak();
  if (parts.includes("soak")) await soak();
  if (parts.includes("hours")) await hours();
}

// ---------------------------------------------------------------------------------------------
// 1. 5,000 feeds, none due: the real process.

/** A `courier forward` process, its stderr read line by line. */
class ForwardProcess {
  readonly started = performance.now();
  readonly #child: Deno.ChildProcess;
  readonly #lines: AsyncGenerator<string>;
  /** Every line after the start-up's (the process's own words on stopping). */
  readonly tail: string[] = [];
  /** "first sighting" lines logged before the start-up's last line. */
  earlyFirstSightings = 0;
  #draining: Promise<void> | null = null;

  constructor(config: string, messengerApi = "http://127.0.0.1:9") {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: courierArgs("forward", "-c", config, "--messenger-api", messengerApi),
      env: PRODUCT_ENV,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    this.#lines = linesOf(this.#child.stderr);
  }

  get pid(): number {
    return this.#child.pid;
  }

  /**
   * Milliseconds from spawn to the `forwarding feeds=N` line; fails on any warning first but,
   * with `lostState`, the one that a database without the feeds of the last-success file gets.
   */
  async scheduled(feeds: number, lostState = false, catchUp = false): Promise<number> {
    let scheduledLines = 0;
    // Not `for await`: leaving that loop would close the lines (and the pipe) for good.
    for (let next = await this.#lines.next(); !next.done; next = await this.#lines.next()) {
      const line = next.value;
      if (/ msg=forwarding feeds=\d+/.test(line)) {
        const elapsed = performance.now() - this.started;
        if (!line.includes(`feeds=${feeds} `)) throw new Error(`unexpected: ${line}`);
        if (scheduledLines !== feeds) throw new Error(`${scheduledLines} "scheduled" lines`);
        this.#draining = (async () => {
          for await (const rest of this.#lines) this.tail.push(rest);
        })();
        return elapsed;
      }
      if (lostState && / level=warn msg="state lost or moved: /.test(line)) continue;
      if (!/ level=info msg=scheduled /.test(line)) {
        // Runs that are due at start may log before the line that says the loop is forwarding.
        if (catchUp && / level=info /.test(line)) {
          if (line.includes('msg="first sighting')) this.earlyFirstSightings++;
          continue;
        }
        throw new Error(`unexpected: ${line}`);
      }
      // A feed due at start would say so; none may be.
      if (!catchUp && line.includes("catch_up")) throw new Error(`a feed catches up: ${line}`);
      scheduledLines++;
    }
    throw new Error("courier forward ended before it was forwarding");
  }

  /** CPU seconds (user + sys) the process has used. */
  async cpuSeconds(): Promise<number> {
    const stat = await Deno.readTextFile(`/proc/${this.pid}/stat`);
    // Fields after the command name (which may hold spaces): state is field 3, utime 14.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  }

  async memory(): Promise<{ rss: number; hwm: number; anon: number; file: number }> {
    const status = await Deno.readTextFile(`/proc/${this.pid}/status`);
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)![1]);
    return {
      rss: kib("VmRSS") * 1024,
      hwm: kib("VmHWM") * 1024,
      // Anonymous memory (heaps, buffers) apart from mapped files (the deno binary's code).
      anon: kib("RssAnon") * 1024,
      file: kib("RssFile") * 1024,
    };
  }

  /** SIGTERM; resolves with the exit code and the milliseconds to exit. */
  async terminate(): Promise<{ code: number; ms: number }> {
    const t = performance.now();
    this.#child.kill("SIGTERM");
    const { code } = await this.#child.status;
    await this.#draining;
    return { code, ms: performance.now() - t };
  }
}

/** Clock ticks per second, the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
let CLOCK_TICKS = 100;

async function idle(): Promise<void> {
  await clockTicks();

  const dir = await Deno.makeTempDir({ prefix: "courier-bench-forward-" });
  try {
    const config = `${dir}/config.yml`;
    // Never fetched: no feed is due in the time measured.
    const feeds: FeedSettings[] = benchFeeds(9, IDLE_FEEDS).map((f) => ({
      ...f,
      cron: "0 0 1 1 *",
    }));
    await writeConfig(config, `${dir}/data`, feeds);
    // Every feed succeeded after its latest slot (1 January 00:00): no catch-up at start.
    await Deno.mkdir(`${dir}/data`, { recursive: true });
    const now = formatRfc3339(new Date(), { wholeSeconds: true });
    await Deno.writeTextFile(
      `${dir}/data/last_success.yml`,
      feeds.map((f) => `${f.name}: ${now}\n`).join(""),
    );
    console.log(
      `\n  1. ${IDLE_FEEDS} feeds configured, none due; \`deno run -A main.ts forward -c FILE\``,
    );

    // The first start creates the database; the feeds are then made known to it, as the runs
    // behind the last-success file would have, so later starts are those of a working install.
    const first = new ForwardProcess(config);
    const firstStart = await first.scheduled(IDLE_FEEDS, true);
    checkStop(first, await first.terminate());
    const db = new DatabaseSync(`${dir}/data/feed_data/courier.db`);
    db.prepare("INSERT INTO feeds (name, first_seen_at) SELECT value, ? FROM json_each(?)")
      .run(now, JSON.stringify(feeds.map((f) => f.name)));
    db.close();

    const starts: number[] = [];
    const rss: number[] = [];
    const hwm: number[] = [];
    const stops: number[] = [];
    let last: ForwardProcess | null = null;
    for (let i = 0; i < STARTS; i++) {
      const p = new ForwardProcess(config);
      starts.push(await p.scheduled(IDLE_FEEDS));
      // Settled: whatever the start-up left to do after the line has run.
      await sleep(1_000);
      const m = await p.memory();
      rss.push(m.rss);
      hwm.push(m.hwm);
      if (i === STARTS - 1) {
        last = p;
        break;
      }
      const stop = await p.terminate();
      checkStop(p, stop);
      stops.push(stop.ms);
    }
    const list = (xs: number[], f: (x: number) => string) => xs.map(f).join(" ");
    const sec = (x: number) => (x / 1000).toFixed(2);
    console.log(
      `    start-up to "forwarding feeds=${IDLE_FEEDS}": median ${sec(median(starts))} s ` +
        `(target ≤ 2 s; runs: ${list(starts, sec)}; first start, creating the database: ` +
        `${sec(firstStart)} s)`,
    );
    console.log(
      `    RSS 1 s after start-up: VmRSS median ${mib(median(rss))} MiB, VmHWM median ` +
        `${mib(median(hwm))} MiB (target ≤ 120 MB = ${(120e6 / MiB).toFixed(0)} MiB; ` +
        `VmHWM runs: ${list(hwm, mib)})`,
    );

    // CPU over windows of 60 s of wall time, in the last process (started like the others).
    const p = last!;
    const cpu: number[] = [];
    // V8 gives the start-up's heap back to the system only after a while idle: when?
    const idleStart = performance.now();
    let belowAt: number | null = null;
    for (let i = 0; i < CPU_WINDOWS; i++) {
      const before = await p.cpuSeconds();
      const end = performance.now() + CPU_WINDOW_MS;
      while (performance.now() < end) {
        await sleep(Math.min(5_000, end - performance.now()));
        if (belowAt === null && (await p.memory()).rss <= 120e6) {
          belowAt = performance.now() - idleStart;
        }
      }
      cpu.push(await p.cpuSeconds() - before);
    }
    const after = await p.memory();
    console.log(
      `    CPU (user+sys) per ${CPU_WINDOW_MS / 1000} s of wall time after start-up: median ` +
        `${median(cpu).toFixed(2)} s (target ≤ 1 s; windows: ${list(cpu, (x) => x.toFixed(2))})`,
    );
    console.log(
      `    RSS after those ${CPU_WINDOWS * CPU_WINDOW_MS / 1000} s idle: VmRSS ${mib(after.rss)} ` +
        `MiB, VmHWM ${mib(after.hwm)} MiB; VmRSS first ≤ 120 MB ` +
        (belowAt === null ? "never" : `${(belowAt / 1000).toFixed(0)} s (±5 s) after start-up`),
    );
    const stop = await p.terminate();
    checkStop(p, stop);
    stops.push(stop.ms);
    console.log(
      `    SIGTERM: exit 0 in all ${STARTS + 1} processes, median ${median(stops).toFixed(0)} ms ` +
        `to exit`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function checkStop(p: ForwardProcess, stop: { code: number }): void {
  if (stop.code !== 0) throw new Error(`courier forward exited ${stop.code}: ${p.tail.join("\n")}`);
  if (!p.tail.some((l) => / level=info msg=stopped/.test(l))) {
    throw new Error(`courier forward did not say "stopped": ${p.tail.join("\n")}`);
  }
}

// ---------------------------------------------------------------------------------------------
// 2. 500 feeds due in the same minute: the tick against once.

async function tick(): Promise<void> {
  const server = await startFeedServer(TICK_FEEDS, true);
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-forward-" });
  try {
    const args = (name: string) => [
      String(server.port),
      `${dir}/${name}`,
      String(TICK_FEEDS),
      String(CONCURRENCY),
    ];
    const sides = [
      await Side.start("tick", FORWARD_SIDE, ["tick", ...args("tick")]),
      await Side.start("runOnce", ONCE_SIDE, ["runOnce", ...args("runOnce")]),
    ];
    const times = await interleave(sides, TICK_ROUNDS);
    for (const side of sides) await side.stop();
    const [t, o] = [median(times.tick), median(times.runOnce)];
    console.log(
      `\n  2. ${TICK_FEEDS} local feeds due in the same minute, steady state (validators: 304s), ` +
        `concurrency ${CONCURRENCY}, in-process, ${TICK_ROUNDS} interleaved rounds each`,
    );
    console.log(
      `    loop tick ${ms(t)}   runOnce ${ms(o)}   ratio ${(t / o).toFixed(2)}× (target ≤ 1.3×)`,
    );
    const spread = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return `${s[0].toFixed(0)}–${s[s.length - 1].toFixed(0)} ms`;
    };
    console.log(`    ranges: tick ${spread(times.tick)}, runOnce ${spread(times.runOnce)}`);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 3. The soak.

interface Reading {
  tick: number;
  seconds?: number;
  dbMiB: number;
  rssMiB: number;
  anonMiB: number;
  fileMiB: number;
  hwmMiB: number;
  heapMiB: number;
  heapTotalMiB: number;
  fds: number;
  settled?: Reading;
}

async function soak(): Promise<void> {
  const server = await startFeedServer(SOAK_FEEDS, true);
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-forward-" });
  try {
    console.log(
      `\n  3. soak: ${SOAK_TICKS} ticks of ${SOAK_FEEDS} feeds due every minute, in-process on ` +
        `a moved clock (steady state, 304s), ticks back to back (no idle time between them for ` +
        `V8 to shrink its heap in, unlike a real minute); memory after a full GC`,
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        FORWARD_SIDE,
        "soak",
        String(server.port),
        `${dir}/soak`,
        String(SOAK_FEEDS),
        String(CONCURRENCY),
        String(SOAK_TICKS),
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const readings: Reading[] = [];
    const f1 = (x: number) => x.toFixed(1).padStart(6);
    for await (const line of linesOf(child.stdout)) {
      const r = JSON.parse(line) as Reading;
      readings.push(r);
      const s = r.settled ?? r;
      console.log(
        `    tick ${String(r.tick).padStart(5)}${
          r.seconds === undefined ? "        " : ` ${r.seconds.toFixed(0).padStart(4)} s `
        } RSS ${f1(s.rssMiB)} MiB (anon ${f1(s.anonMiB)}, files ${f1(s.fileMiB)})  heap ` +
          `used ${f1(s.heapMiB)} of ${f1(s.heapTotalMiB)} MiB  fds ${s.fds}  db ` +
          `${r.dbMiB.toFixed(1)} MiB`,
      );
    }
    if (!(await child.status).success) throw new Error("the soak side failed");
    const start = readings[0];
    const end = readings[readings.length - 1];
    const endSettled = end.settled ?? end;
    const half = readings[Math.floor(readings.length / 2)];
    const halfSettled = half.settled ?? half;
    const d = (key: "rssMiB" | "heapMiB", from: Reading) =>
      `${(endSettled[key] - from[key]).toFixed(1)} MiB`;
    console.log(
      `    end against start: RSS ${(endSettled.rssMiB / start.rssMiB).toFixed(2)}× ` +
        `(${d("rssMiB", start)}), heap ${d("heapMiB", start)}, fds ${
          endSettled.fds - start.fds
        }; ` +
        `VmHWM ${end.hwmMiB.toFixed(0)} MiB`,
    );
    console.log(
      `    second half (ticks ${half.tick}–${end.tick}): RSS ${d("rssMiB", halfSettled)}, ` +
        `heap ${d("heapMiB", halfSettled)}`,
    );
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 4. 5,000 feeds due in the same minute: the real process, its peak.

const PEAK_FEEDS = 5_000;
const PEAK_TICKS = QUICK ? 1 : 3;
/**
 * COURIER_BENCH_PEAK_RUNS: processes started one after the other (default 3). A peak is one
 * moment of one process on a shared machine: the spread over runs is part of the figure.
 */
const PEAK_RUNS = Number(Deno.env.get("COURIER_BENCH_PEAK_RUNS") ?? (QUICK ? 1 : 3));

/** What one process of part 4 showed. */
interface PeakRun {
  /** VmHWM after start-up, after the first-sighting tick, at the end (bytes). */
  hwmStart: number;
  hwmFirst: number;
  hwm: number;
  /** CPU seconds of start-up and the first-sighting tick, and of each steady tick. */
  firstCpu: number;
  perTick: number[];
  /** The highest VmRSS sampled every 250 ms. */
  sampledMax: number;
}

async function peak(): Promise<void> {
  await clockTicks();
  const server = await startFeedServer(PEAK_FEEDS, true);
  try {
    console.log(
      `\n  4. ${PEAK_FEEDS} local feeds, every one due every minute (\`* * * * *\`), the real ` +
        `process (${PEAK_RUNS} of them, one after the other, each with a new data_dir); the ` +
        `first tick at start is every feed's first sighting (${ENTRIES} entries each recorded as ` +
        `seen, nothing sent), then ${PEAK_TICKS} steady ticks (304s); VmHWM is the whole ` +
        `process's peak, start-up's config parse included (MB = 10^6 bytes, MiB = 2^20)`,
    );
    const runs: PeakRun[] = [];
    for (let i = 0; i < PEAK_RUNS; i++) {
      const r = await peakRun(server.port);
      runs.push(r);
      console.log(
        `    run ${i + 1}: VmHWM ${mb(r.hwm)} MB = ${mib(r.hwm)} MiB (after start-up ` +
          `${mib(r.hwmStart)} MiB, after the first-sighting tick ${mib(r.hwmFirst)} MiB; VmRSS ` +
          `sampled every 250 ms: max ${mib(r.sampledMax)} MiB); CPU (user+sys): start-up and ` +
          `first-sighting tick ${r.firstCpu.toFixed(1)} s, steady ticks ` +
          `${r.perTick.map((x) => x.toFixed(2)).join(" ")} s`,
      );
    }
    const hwms = runs.map((r) => r.hwm);
    const ticks = runs.flatMap((r) => r.perTick);
    console.log(
      `    VmHWM of the whole process: max ${mb(Math.max(...hwms))} MB, median ` +
        `${mb(median(hwms))} MB over ${runs.length} runs (${hwms.map(mb).join(", ")} MB); ` +
        `target ≤ 120 MB: ${Math.max(...hwms) <= 120e6 ? "met" : "NOT met"}`,
    );
    console.log(
      `    CPU (user+sys) per steady tick of ${PEAK_FEEDS} feeds: median ` +
        `${median(ticks).toFixed(2)} s (${ticks.length} ticks, ` +
        `${Math.min(...ticks).toFixed(2)}–${Math.max(...ticks).toFixed(2)} s)`,
    );
  } finally {
    await server.stop();
  }
}

const mib = (x: number) => (x / MiB).toFixed(0);
const mb = (x: number) => (x / 1e6).toFixed(0);

async function peakRun(port: number): Promise<PeakRun> {
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-forward-" });
  try {
    const config = `${dir}/config.yml`;
    const feeds = benchFeeds(port, PEAK_FEEDS).map((f) => ({ ...f, cron: "* * * * *" }));
    await writeConfig(config, `${dir}/data`, feeds, { first_time_limit: 0 });
    const p = new ForwardProcess(config);
    await p.scheduled(PEAK_FEEDS, false, true);
    const atStart = await p.memory();
    // The start-up's catch-up tick runs every feed: wait until the next minute, sampling.
    const samples: number[] = [];
    const sampleUntil = async (wallMs: number) => {
      while (Date.now() < wallMs) {
        samples.push((await p.memory()).rss);
        await sleep(Math.min(250, Math.max(0, wallMs - Date.now())));
      }
    };
    const nextMinute = () => Math.ceil((Date.now() + 1) / 60_000) * 60_000;
    // The first tick is over once every feed has said its first sighting.
    const firstDone = () => p.tail.filter((l) => l.includes('msg="first sighting')).length;
    while (firstDone() + p.earlyFirstSightings < PEAK_FEEDS) {
      samples.push((await p.memory()).rss);
      await sleep(250);
    }
    const afterFirst = await p.memory();
    const firstCpu = await p.cpuSeconds();
    // Then whole minutes, each with one steady tick of every feed.
    await sampleUntil(nextMinute());
    const perTick: number[] = [];
    for (let i = 0; i < PEAK_TICKS; i++) {
      const before = await p.cpuSeconds();
      await sampleUntil(nextMinute());
      perTick.push(await p.cpuSeconds() - before);
    }
    const end = await p.memory();
    checkStop(p, await p.terminate());
    return {
      hwmStart: atStart.hwm,
      hwmFirst: afterFirst.hwm,
      hwm: end.hwm,
      firstCpu,
      perTick,
      sampledMax: Math.max(...samples),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Hours: the real process on real minutes.

/** COURIER_BENCH_SOAK_MINUTES: how long the real-time soak runs (default 2 hours). */
const HOURS_MINUTES = Number(Deno.env.get("COURIER_BENCH_SOAK_MINUTES") ?? (QUICK ? 3 : 120));
const HOURS_FEEDS = 50;
/** Minutes between readings printed; the one at 30 minutes is the reference. */
const HOURS_EVERY = 5;

/**
 * A feed server whose every feed gains an entry each minute (the newest 20 are served, with an
 * ETag per version, so a feed unchanged since the last fetch answers 304).
 */
function growingFeeds(feeds: number): { port: number; stop(): Promise<void> } {
  const start = Math.floor(Date.now() / 60_000);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const m = /^\/feed(\d+)\.xml$/.exec(new URL(req.url).pathname);
    if (!m || Number(m[1]) >= feeds) return new Response("no", { status: 404 });
    const f = Number(m[1]);
    const minute = Math.floor(Date.now() / 60_000) - start;
    const etag = `"${f}-${minute}"`;
    if (req.headers.get("if-none-match") === etag) {
      return new Response(null, { status: 304, headers: { etag } });
    }
    let items = "";
    for (let i = minute; i > minute - 20 && i >= 0; i--) {
      const date = new Date((start + i) * 60_000).toUTCString();
      items += `<item><title>Feed ${f} minute ${i}</title><link>https://example.org/${f}/${i}` +
        `</link><guid>https://example.org/${f}/${i}</guid><pubDate>${date}</pubDate></item>`;
    }
    return new Response(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed ${f}</title>` +
        `<link>https://example.org/</link><description>d</description>${items}</channel></rss>`,
      { headers: { "content-type": "application/rss+xml", etag } },
    );
  });
  return { port: server.addr.port, stop: () => server.shutdown() };
}

async function hours(): Promise<void> {
  const { startFakeBotApi } = await import("../tests/support/fake_bot_api.ts");
  const bot = await startFakeBotApi();
  const feedServer = growingFeeds(HOURS_FEEDS);
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-forward-" });
  try {
    const config = `${dir}/config.yml`;
    // 10 channels of 5 feeds: 5 messages a minute each, within Telegram's 20.
    const feeds = benchFeeds(feedServer.port, HOURS_FEEDS).map((f, i) => ({
      ...f,
      cron: "* * * * *",
      channel: `@soak${i % 10}`,
    }));
    await writeConfig(config, `${dir}/data`, feeds, {
      first_time_limit: 1,
      messenger_auth_token: bot.token,
    });
    console.log(
      `\n  5. soak on real minutes: ${HOURS_FEEDS} feeds due every minute, each gaining an ` +
        `entry a minute (${HOURS_FEEDS} messages a minute to the fake Bot API), the real ` +
        `process, for ${HOURS_MINUTES} min (COURIER_BENCH_SOAK_MINUTES); VmRSS every ` +
        `${HOURS_EVERY} min`,
    );
    const p = new ForwardProcess(config, bot.url);
    await p.scheduled(HOURS_FEEDS, false, true);
    const begun = performance.now();
    const readings: { minute: number; rss: number; hwm: number; sent: number }[] = [];
    let cpuBefore = await p.cpuSeconds();
    for (let minute = HOURS_EVERY; minute <= HOURS_MINUTES; minute += HOURS_EVERY) {
      await sleep(Math.max(0, begun + minute * 60_000 - performance.now()));
      const m = await p.memory();
      const cpu = await p.cpuSeconds();
      readings.push({ minute, rss: m.rss, hwm: m.hwm, sent: bot.messages().length });
      console.log(
        `    ${String(minute).padStart(4)} min  VmRSS ${(m.rss / MiB).toFixed(1)} MiB (anon ` +
          `${(m.anon / MiB).toFixed(1)}, files ${(m.file / MiB).toFixed(1)})  VmHWM ` +
          `${(m.hwm / MiB).toFixed(1)} MiB  CPU ${(cpu - cpuBefore).toFixed(1)} s in the last ` +
          `${HOURS_EVERY} min  messages ${bot.messages().length}`,
      );
      cpuBefore = cpu;
    }
    checkStop(p, await p.terminate());
    const at30 = readings.find((r) => r.minute === 30);
    const end = readings[readings.length - 1];
    const texts = bot.messages().map((m) => m.text);
    const duplicates = texts.length - new Set(texts).size;
    console.log(
      `    messages: ${texts.length}, duplicates ${duplicates}, ${bot.throttled} answered 429`,
    );
    if (at30 && end) {
      const d = (end.rss - at30.rss) / 1e6;
      console.log(
        `    VmRSS at 30 min ${(at30.rss / 1e6).toFixed(1)} MB, at the end (${end.minute} min) ` +
          `${(end.rss / 1e6).toFixed(1)} MB: ${d >= 0 ? "+" : ""}${d.toFixed(1)} MB ` +
          `(target within 10 MB)`,
      );
    }
  } finally {
    await feedServer.stop();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function clockTicks(): Promise<void> {
  const out = await new Deno.Command("getconf", { args: ["CLK_TCK"] }).output();
  if (out.success) CLOCK_TICKS = Number(new TextDecoder().decode(out.stdout).trim()) || 100;
}

if (import.meta.main) await run();
