/**
 * The long-lived loop of `courier forward`: it owns the Schedule, wakes on the injected clock,
 * starts what is due as one forwarder run (feeds due together run concurrently and keep config
 * order on a shared channel), never starts a feed whose previous run is still going, and
 * survives every failure. Reload and stop are its API; the process's signals are the CLI's.
 *
 * It sets no real timer itself: every wait goes through the Clock, so a test drives months of
 * schedule in milliseconds.
 */
import type { FeedSettings } from "../config/types.ts";
import type { Clock, TimerId } from "../time/clock.ts";
import { type Logger, messageOf } from "../log/logger.ts";
import { someNames } from "./bursts.ts";
import type { FeedResult } from "./feed_run.ts";
import { Forwarder, type ForwarderOptions } from "./forwarder.ts";
import { type HealthSnapshot, schedulerHealthy } from "./health.ts";
import type { Leases } from "./leases.ts";
import type { ForwardMetrics } from "./metrics.ts";
import { Schedule } from "./schedule.ts";

/**
 * The longest the loop sleeps even when nothing is due sooner: the wall clock may jump
 * (suspend/resume, an NTP step) while the timer runs on monotonic time, so the loop looks at
 * the wall clock at least this often.
 */
export const MAX_SLEEP_MS = 60_000;
/** How often the maintenance hook runs, on the loop's (monotonic) clock. */
export const MAINTENANCE_EVERY_MS = 24 * 60 * 60 * 1000;

export interface LoopOptions {
  /** What every run needs; the loop adds its clock, its stop signal and its own callbacks. */
  forwarder: Omit<
    ForwarderOptions,
    "signal" | "onFeedDone" | "onStart" | "onUnauthorized" | "clock"
  >;
  clock: Clock;
  logger: Logger;
  metrics?: ForwardMetrics;
  /** IANA zone for every cron expression; default the process's (TZ). */
  timezone?: string;
  /** Feed name → time of its last successful run (the last-success file at start). */
  lastSuccess: ReadonlyMap<string, Date>;
  maxSleepMs?: number;
  /** Retention and the like: once after start, then every MAINTENANCE_EVERY_MS. */
  maintenance?: () => Promise<void>;
  /** Cheap upkeep after a tick whose runs wrote something (a WAL checkpoint). */
  checkpoint?: () => Promise<void>;
  /**
   * With state shared by several processes: a feed is started only while its channel's lease
   * is held; channels taken later (a process died or handed them back) have their feeds run at
   * once, after `onTakeover`. The loop starts the renewals; the runtime hands them back.
   */
  leases?: Pick<Leases, "holds" | "setChannels" | "start" | "onTaken" | "busy">;
  onTakeover?: (channels: string[], feeds: FeedSettings[]) => Promise<void>;
}

export interface ReloadChanges {
  added: string[];
  /** Feeds whose settings (cron, URL, channel, ...) differ. */
  changed: string[];
  removed: string[];
}

interface InFlight {
  startedAt: number;
  /** Whether it has its fetch slot: until then it is waiting, and has not started. */
  started: boolean;
}

export class Loop {
  readonly #options: LoopOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #schedule: Schedule;
  readonly #forwarder: Forwarder;
  readonly #stopRuns = new AbortController();
  readonly #maxSleepMs: number;
  /** Current feeds by name, in config order. */
  #feeds = new Map<string, FeedSettings>();
  readonly #lastSuccess: Map<string, Date>;
  readonly #inFlight = new Map<string, InFlight>();
  /** Feeds removed by a reload while running: their metrics go when their run ends. */
  readonly #removedWhileRunning = new Set<string>();
  readonly #runs = new Set<Promise<void>>();
  #timer: TimerId | undefined;
  #maintenanceTimer: TimerId | undefined;
  #maintaining: Promise<void> | null = null;
  #checkpointing: Promise<void> | null = null;
  #started = false;
  #stopping = false;
  /** Wall time of the last tick, and monotonic times of the last and the expected next. */
  #lastTickWall: Date | null = null;
  #lastTickMono: number | null = null;
  #nextTickMono: number | null = null;

  constructor(options: LoopOptions) {
    this.#options = options;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#maxSleepMs = options.maxSleepMs ?? MAX_SLEEP_MS;
    this.#schedule = new Schedule(options.timezone);
    this.#lastSuccess = new Map(options.lastSuccess);
    this.#forwarder = new Forwarder({
      ...options.forwarder,
      clock: options.clock,
      signal: this.#stopRuns.signal,
      onUnauthorized: "continue",
      onFeedDone: (result) => this.#feedDone(result),
      onStart: (name) => {
        const run = this.#inFlight.get(name);
        if (run) run.started = true;
      },
    });
  }

  /** Schedules `feeds` (config order), logs one line per feed, and runs what is due now. */
  start(feeds: FeedSettings[]): void {
    if (this.#started) throw new Error("loop already started");
    this.#started = true;
    const now = new Date(this.#clock.now());
    this.#install(feeds, now);
    for (const [name, at] of this.#lastSuccess) {
      if (this.#feeds.has(name)) this.#options.metrics?.setLastSuccess(name, at);
    }
    for (const feed of feeds) {
      this.#logger.info("scheduled", {
        feed: feed.name,
        cron: feed.cron,
        ...this.#nextRun(feed.name, now),
      });
    }
    if (this.#options.maintenance) this.#maintain();
    const leases = this.#options.leases;
    if (leases) {
      leases.busy = (channel) =>
        [...this.#inFlight.keys()].some((name) => this.#feeds.get(name)?.channel === channel);
      leases.onTaken = (channels) => this.#takenOver(channels);
      leases.start();
    }
    this.#tick();
  }

  /** Runs at once the feeds of channels just taken over: they catch up as after a restart. */
  #takenOver(channels: string[]): void {
    if (this.#stopping) return;
    const taken = new Set(channels);
    const feeds = [...this.#feeds.values()].filter((f) => taken.has(f.channel));
    this.#logger.info("leases taken; running their feeds now", {
      channels: channels.join(","),
      feeds: feeds.length,
    });
    const ready = this.#options.onTakeover?.(channels, feeds) ?? Promise.resolve();
    const run = ready.catch((error) => {
      this.#logger.warn("taking the channels over", { error: messageOf(error) });
    }).then(() => {
      const idle = feeds.filter((f) => !this.#inFlight.has(f.name));
      if (!this.#stopping && idle.length > 0) this.#launch(idle);
    }).finally(() => this.#runs.delete(run));
    this.#runs.add(run);
  }

  /**
   * Replaces the feeds (config order). New feeds and feeds whose cron changed get the catch-up
   * rule; a run in progress finishes with the settings it started with.
   */
  reload(feeds: FeedSettings[]): ReloadChanges {
    const now = new Date(this.#clock.now());
    const before = this.#feeds;
    const { added, removed } = this.#install(feeds, now);
    this.#options.leases?.setChannels(feeds.map((f) => f.channel));
    // A changed cron is a changed feed too: the settings are plain values.
    const changed = feeds
      .filter((f) => before.has(f.name) && JSON.stringify(before.get(f.name)) !== JSON.stringify(f))
      .map((f) => f.name);
    for (const name of removed) {
      if (this.#inFlight.has(name)) this.#removedWhileRunning.add(name);
      else this.#options.metrics?.removeFeed(name);
    }
    for (const name of added) {
      const last = this.#lastSuccess.get(name);
      if (last) this.#options.metrics?.setLastSuccess(name, last);
    }
    // Feeds added or changed may be due at once (catch-up).
    if (this.#started && !this.#stopping) this.#tick();
    return { added, changed, removed };
  }

  /** Resolves once every run in progress now has ended (to close what only they still use). */
  async runsEnded(): Promise<void> {
    await Promise.all([...this.#runs]);
  }

  /**
   * Starts no new run; lets those in progress finish for `graceMs`, then aborts them (a run
   * stops before its next send: nothing is marked sent that was not). Resolves once every
   * run, the maintenance under way and the state's writes have settled.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#clearTimer();
    if (this.#maintenanceTimer !== undefined) this.#clock.clearTimeout(this.#maintenanceTimer);
    this.#maintenanceTimer = undefined;
    if (this.#runs.size > 0) {
      let graceTimer: TimerId | undefined;
      const graceOver = new Promise<"grace">((resolve) => {
        graceTimer = this.#clock.setTimeout(() => resolve("grace"), Math.max(0, graceMs));
      });
      const all = this.runsEnded().then(() => "done" as const);
      if (await Promise.race([all, graceOver]) === "grace") {
        this.#logger.warn("stopping the runs still going after the grace period", {
          count: this.#inFlight.size,
          feeds: someNames([...this.#inFlight.keys()]),
          grace_s: graceMs / 1000,
        });
        this.#stopRuns.abort(new Error("stopped after the grace period"));
      }
      this.#clock.clearTimeout(graceTimer);
      await all;
    }
    await Promise.all([this.#maintaining, this.#checkpointing]);
    await this.#forwarder.flush();
  }

  /** Whether the loop ticks when it planned to, for `/healthz`. */
  health(slackMs = this.#maxSleepMs): HealthSnapshot {
    // Monotonic times: a wall-clock jump neither stalls nor revives the loop's health.
    const ok = schedulerHealthy(
      this.#lastTickMono,
      this.#stopping ? null : this.#nextTickMono,
      this.#clock.monotonic(),
      slackMs,
    );
    return { ok, feeds: this.#feeds.size, lastTick: this.#lastTickWall };
  }

  /** Feeds whose run is in progress. */
  get running(): string[] {
    return [...this.#inFlight.keys()];
  }

  #install(feeds: FeedSettings[], now: Date) {
    const changes = this.#schedule.update(feeds, this.#lastSuccess, now);
    this.#feeds = new Map(feeds.map((f) => [f.name, f]));
    for (const feed of feeds) {
      this.#options.metrics?.addFeed(feed.name);
      this.#options.metrics?.setNextRun(feed.name, this.#schedule.nextFor(feed.name));
    }
    return changes;
  }

  /**
   * A feed's next run for the log: `next_run` is always a time (or absent when the schedule
   * has ended), and `catch_up=true` says it is due at once because a time passed while down.
   */
  #nextRun(feed: string, now: Date): { next_run?: string; catch_up?: true } {
    const next = this.#schedule.nextFor(feed);
    if (next === null) return {};
    return next.getTime() <= now.getTime()
      ? { next_run: now.toISOString(), catch_up: true }
      : { next_run: next.toISOString() };
  }

  #tick(): void {
    this.#clearTimer();
    if (this.#stopping) return;
    const now = new Date(this.#clock.now());
    this.#lastTickWall = now;
    this.#lastTickMono = this.#clock.monotonic();
    const start: FeedSettings[] = [];
    const skipped: { name: string; slot: Date | null }[] = [];
    let waiting = 0;
    for (const { feed: name, slot } of this.#schedule.due(now)) {
      this.#options.metrics?.setNextRun(name, this.#schedule.nextFor(name));
      const feed = this.#feeds.get(name);
      if (!feed) continue;
      // Another process holds the channel and runs this slot.
      if (this.#options.leases && !this.#options.leases.holds(feed.channel)) continue;
      const running = this.#inFlight.get(name);
      if (running?.started) {
        skipped.push({ name, slot });
        this.#options.metrics?.recordOverlapSkip(name);
      } else if (running) {
        // Still waiting for a fetch slot: the run that starts then fetches after this slot
        // too, so it stands for both, and nothing is skipped.
        waiting++;
      } else {
        start.push(feed);
      }
    }
    this.#logSkipped(skipped);
    if (waiting > 0) {
      this.#logger.debug("due again while waiting for a fetch slot; that run covers it", {
        feeds: waiting,
      });
    }
    if (start.length > 0) this.#launch(start);
    const next = this.#schedule.nextAt();
    const wait = next === null
      ? this.#maxSleepMs
      : Math.min(this.#maxSleepMs, Math.max(0, next.getTime() - now.getTime()));
    this.#nextTickMono = this.#lastTickMono + wait;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#tick();
    }, wait);
  }

  /** One line for a tick's overlapping feeds, however many: a count and the first names. */
  #logSkipped(skipped: { name: string; slot: Date | null }[]): void {
    if (skipped.length === 0) return;
    if (skipped.length === 1) {
      this.#logger.warn("previous run still going; skipping this one", {
        feed: skipped[0].name,
        slot: skipped[0].slot?.toISOString(),
      });
      return;
    }
    this.#logger.warn("previous runs still going; skipping these", {
      count: skipped.length,
      feeds: someNames(skipped.map((s) => s.name)),
      slot: skipped[0].slot?.toISOString(),
    });
  }

  #launch(feeds: FeedSettings[]): void {
    const startedAt = this.#clock.monotonic();
    for (const feed of feeds) this.#inFlight.set(feed.name, { startedAt, started: false });
    const run = this.#forwarder.run(feeds).then(
      (summary) => {
        if (summary.results.some((r) => r.sent > 0 || r.skipped > 0)) this.#checkpoint();
      },
      (error) => {
        // run() reports feed failures in its results; this is a bug, and the loop goes on.
        this.#logger.error("run failed", { error: messageOf(error) });
        for (const feed of feeds) this.#inFlight.delete(feed.name);
      },
    ).finally(() => this.#runs.delete(run));
    this.#runs.add(run);
  }

  #feedDone(result: FeedResult): void {
    const name = result.feed;
    const started = this.#inFlight.get(name);
    this.#inFlight.delete(name);
    const seconds = started ? Math.max(0, this.#clock.monotonic() - started.startedAt) / 1000 : 0;
    const metrics = this.#options.metrics;
    const outcome = result.error === null
      ? "ok"
      : this.#stopRuns.signal.aborted
      ? "aborted"
      : "failed";
    if (metrics) {
      metrics.recordRun(name, outcome, seconds);
      if (result.sent > 0) metrics.recordSent(name, result.sent);
      if (result.refused > 0) metrics.recordRefused(name, result.refused);
      if (result.filtered > 0) metrics.recordFiltered(name, result.filtered);
    }
    if (result.error === null) {
      const at = new Date(this.#clock.now());
      this.#lastSuccess.set(name, at);
      metrics?.setLastSuccess(name, at);
    }
    // A failure was logged by the run itself (feed, URL, step, reason): one line per run.
    if (result.error === null && (result.sent > 0 || result.skipped > 0)) {
      this.#logger.info("feed sent", {
        feed: name,
        sent: result.sent,
        skipped: result.skipped || undefined,
        duration_s: Math.round(seconds * 1000) / 1000,
      });
    } else if (result.error === null) {
      this.#logger.debug("feed checked: nothing new", {
        feed: name,
        fetched: result.fetched,
        duration_s: Math.round(seconds * 1000) / 1000,
      });
    }
    if (this.#removedWhileRunning.delete(name) && !this.#feeds.has(name)) {
      metrics?.removeFeed(name);
    }
  }

  #maintain(): void {
    const hook = this.#options.maintenance;
    if (!hook || this.#stopping) return;
    if (this.#maintaining === null) {
      this.#maintaining = hook().catch((error) => {
        this.#logger.error("maintenance failed", { error: messageOf(error) });
      }).finally(() => this.#maintaining = null);
    }
    this.#maintenanceTimer = this.#clock.setTimeout(() => {
      this.#maintenanceTimer = undefined;
      this.#maintain();
    }, MAINTENANCE_EVERY_MS);
  }

  #checkpoint(): void {
    const hook = this.#options.checkpoint;
    // One at a time: a checkpoint asked for while one runs is covered by the next tick's.
    if (!hook || this.#checkpointing !== null) return;
    this.#checkpointing = hook().catch((error) => {
      this.#logger.warn("checkpoint failed", { error: messageOf(error) });
    }).finally(() => this.#checkpointing = null);
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
