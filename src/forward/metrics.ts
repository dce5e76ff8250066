/**
 * The forwarder's metrics in the Prometheus text exposition format (version 0.0.4).
 *
 * Written here rather than with npm `prom-client`, whose import (it pulls @opentelemetry/api,
 * tdigest and bintrees) outweighed this module many times in `forward`'s time and memory
 * (bench/NOTES.md), for a fixed set of families that fits in one small renderer. Only the
 * `forward` command may import this module, so `once` never loads it (a test checks the graph).
 *
 * Label values are only feed names, the version (the config restricts them to NAME_PATTERN, re-checked
 * here), outcomes from RUN_OUTCOMES and numeric status codes: a secret cannot reach a label.
 */

import { VERSION } from "../version.ts";
import { type ProcessReading, readProcess } from "./process_stats.ts";

/** How a feed run ended: `aborted` is a run cut short by a stop signal after the grace. */
export const RUN_OUTCOMES = ["ok", "failed", "aborted"] as const;
export type RunOutcome = typeof RUN_OUTCOMES[number];

/**
 * Run duration is exposed twice, by design. Per feed, a summary without quantiles (`_sum` and
 * `_count`, 2 series): rate(sum)/rate(count) is each feed's mean, which answers "which feed is
 * slow", and sums add up across feeds and instances. Over all feeds, one histogram with these
 * bounds: histogram_quantile gives the forwarder's p50/p95. A histogram per feed would cost
 * 12 series a feed (megabytes a scrape for thousands of feeds) for quantiles nobody needs per
 * feed; client-side summary quantiles cannot be aggregated and need a sketch in process.
 * A run fetches (seconds) then sends at most 20 messages a minute per channel, so a large
 * first sighting takes minutes: hence bounds up to 5 min.
 */
export const DURATION_BUCKETS: readonly number[] = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** Same rule as the config's NAME_PATTERN (a test keeps them equal), plus its length cap. */
export const FEED_LABEL_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*$";
const FEED_LABEL = new RegExp(FEED_LABEL_PATTERN);
const FEED_LABEL_MAX = 100;

export interface MetricsOptions {
  /** When the process started; default: the runtime's time origin. */
  startTime?: Date;
  /** Read at each render; default: this process (process_stats.ts). */
  process?: () => ProcessReading;
  /** For courier_build_info; default: src/version.ts. */
  version?: string;
}

interface FeedSeries {
  runs: Record<RunOutcome, number>;
  sent: number;
  refused: number;
  /** Entries the feed's filter dropped. */
  filtered: number;
  overlapSkips: number;
  /** Seconds since the epoch; null until known. */
  lastSuccess: number | null;
  nextRun: number | null;
  durationSum: number;
  durationCount: number;
}

/** `\`, `"` and line feed escaped, as the text format requires inside a label value. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

/** A sample value as the text format spells it (Go's ParseFloat reads every form). */
export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}

function checkFeed(feed: string): void {
  // The value is deliberately not echoed: whatever got here by mistake may be a secret.
  if (typeof feed !== "string" || feed.length > FEED_LABEL_MAX || !FEED_LABEL.test(feed)) {
    throw new RangeError("metrics: a feed label must be a config feed name");
  }
}

/**
 * Each line is encoded into one byte buffer, reused across renders, as soon as it is made, so
 * lines die young, and the sorted feed list is kept between renders: collecting the lines in
 * an array and joining them, or sorting anew each time, took a large exposition's renders to
 * several times the memory (bench/NOTES.md).
 */
class LineWriter {
  static readonly #encoder = new TextEncoder();
  static readonly #decoder = new TextDecoder();
  #buffer = new Uint8Array(64 * 1024);
  #length = 0;

  reset(): void {
    this.#length = 0;
  }

  push(line: string): void {
    const room = line.length * 3 + 1; // UTF-8 needs at most 3 bytes per UTF-16 unit
    if (this.#buffer.length - this.#length < room) {
      const grown = new Uint8Array(Math.max(this.#buffer.length * 2, this.#length + room));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    const { written } = LineWriter.#encoder.encodeInto(line, this.#buffer.subarray(this.#length));
    this.#length += written;
    this.#buffer[this.#length++] = 0x0a; // every line ends in a line feed, the last one too
  }

  text(): string {
    return LineWriter.#decoder.decode(this.#buffer.subarray(0, this.#length));
  }
}

/** The metrics of one forward process; the loop records, `/metrics` renders. */
export class ForwardMetrics {
  readonly #feeds = new Map<string, FeedSeries>();
  readonly #responses = new Map<number, number>();
  /** Non-cumulative counts per bucket of DURATION_BUCKETS (all feeds); cumulated when rendered. */
  readonly #buckets = DURATION_BUCKETS.map(() => 0);
  #durationSum = 0;
  #durationCount = 0;
  readonly #startTime: number;
  readonly #process: () => ProcessReading;
  readonly #version: string;
  readonly #out = new LineWriter();
  /** Feeds in render order with their label text; rebuilt only when the set of feeds changes. */
  #sorted: (readonly [string, FeedSeries, string])[] | null = null;

  constructor(options: MetricsOptions = {}) {
    this.#startTime = options.startTime
      ? epochSeconds(options.startTime)
      : Math.round(performance.timeOrigin) / 1000;
    this.#process = options.process ?? readProcess;
    this.#version = options.version ?? VERSION;
  }

  /** A feed's series, created at zero so every outcome is present from the feed's first record. */
  #feed(feed: string): FeedSeries {
    let series = this.#feeds.get(feed);
    if (series === undefined) {
      checkFeed(feed);
      series = {
        runs: { ok: 0, failed: 0, aborted: 0 },
        sent: 0,
        refused: 0,
        filtered: 0,
        overlapSkips: 0,
        lastSuccess: null,
        nextRun: null,
        durationSum: 0,
        durationCount: 0,
      };
      this.#feeds.set(feed, series);
      this.#sorted = null;
    }
    return series;
  }

  recordRun(feed: string, outcome: RunOutcome, durationSeconds: number): void {
    if (!RUN_OUTCOMES.includes(outcome)) throw new RangeError("metrics: unknown run outcome");
    if (!Number.isFinite(durationSeconds) || durationSeconds < 0) {
      throw new RangeError("metrics: a run duration must be a finite number of seconds >= 0");
    }
    const series = this.#feed(feed);
    series.runs[outcome]++;
    const bucket = DURATION_BUCKETS.findIndex((bound) => durationSeconds <= bound);
    if (bucket !== -1) this.#buckets[bucket]++;
    this.#durationSum += durationSeconds;
    this.#durationCount++;
    series.durationSum += durationSeconds;
    series.durationCount++;
  }

  recordSent(feed: string, n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError("metrics: sent count must be >= 0");
    this.#feed(feed).sent += n;
  }

  recordFiltered(feed: string, n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError("metrics: filtered count must be >= 0");
    this.#feed(feed).filtered += n;
  }

  /** Entries the messenger refused in every form: recorded, never posted. */
  recordRefused(feed: string, n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError("metrics: refused count must be >= 0");
    this.#feed(feed).refused += n;
  }

  /**
   * Makes the feed's series exist (at zero) before its first run, so that a feed that never
   * succeeds still has a last-success series for an age alert to fire on.
   */
  addFeed(feed: string): void {
    this.#feed(feed);
  }

  /** null: the feed has no next run (its schedule ended). */
  setNextRun(feed: string, date: Date | null): void {
    this.#feed(feed).nextRun = date === null ? null : epochSeconds(date);
  }

  setLastSuccess(feed: string, date: Date): void {
    this.#feed(feed).lastSuccess = epochSeconds(date);
  }

  recordOverlapSkip(feed: string): void {
    this.#feed(feed).overlapSkips++;
  }

  recordMessengerResponse(code: number): void {
    if (!Number.isInteger(code) || code < 100 || code > 599) {
      throw new RangeError("metrics: an HTTP status code is an integer from 100 to 599");
    }
    this.#responses.set(code, (this.#responses.get(code) ?? 0) + 1);
  }

  /**
   * Drops every series of a feed (removed by a reload). Call it once the feed's last run has
   * finished: a record after removal brings the feed back with counters from zero.
   */
  removeFeed(feed: string): void {
    if (this.#feeds.delete(feed)) this.#sorted = null;
  }

  /** With remote state: the channel leases this process holds, and has lost over its life. */
  #leases: (() => { held: number; lost: number }) | null = null;

  /** Reads the leases at each render (src/forward/leases.ts); absent for a local database. */
  watchLeases(read: () => { held: number; lost: number }): void {
    this.#leases = read;
  }

  /** The whole exposition, families in a fixed order, feeds sorted by name. */
  render(): string {
    const out = this.#out;
    out.reset();
    this.#sorted ??= [...this.#feeds.keys()].sort().map((name) => {
      return [name, this.#feeds.get(name)!, `feed="${escapeLabelValue(name)}"`] as const;
    });
    const feeds = this.#sorted;
    const family = (name: string, type: string, help: string) => {
      out.push(`# HELP ${name} ${help}`);
      out.push(`# TYPE ${name} ${type}`);
    };
    const sample = (name: string, labels: string, value: number) => {
      out.push(`${name}${labels ? `{${labels}}` : ""} ${formatSampleValue(value)}`);
    };
    /** A family with one sample per feed. */
    const eachFeed = (
      name: string,
      type: string,
      help: string,
      value: (s: FeedSeries) => number,
    ) => {
      family(name, type, help);
      for (const [, s, feed] of feeds) sample(name, feed, value(s));
    };

    family("courier_feed_runs_total", "counter", "Feed runs, by feed and outcome.");
    for (const [, s, feed] of feeds) {
      for (const outcome of RUN_OUTCOMES) {
        sample("courier_feed_runs_total", `${feed},outcome="${outcome}"`, s.runs[outcome]);
      }
    }

    eachFeed(
      "courier_feed_entries_sent_total",
      "counter",
      "Entries the messenger accepted.",
      (s) => s.sent,
    );
    eachFeed(
      "courier_feed_entries_refused_total",
      "counter",
      "Entries the messenger refused in every form: recorded, never posted.",
      (s) => s.refused,
    );
    eachFeed(
      "courier_feed_entries_filtered_total",
      "counter",
      "Entries the feed's filter dropped (recorded as seen, never posted).",
      (s) => s.filtered,
    );
    // 0 for a feed that never succeeded: `time() - x > age` fires for it as for a stale one.
    eachFeed(
      "courier_feed_last_success_timestamp_seconds",
      "gauge",
      "When the feed's last successful run finished, in seconds since the epoch; 0: never.",
      (s) => s.lastSuccess ?? 0,
    );

    family(
      "courier_feed_next_run_timestamp_seconds",
      "gauge",
      "When the feed is next due, in seconds since the epoch.",
    );
    for (const [, s, feed] of feeds) {
      if (s.nextRun !== null) sample("courier_feed_next_run_timestamp_seconds", feed, s.nextRun);
    }

    const perFeed = "courier_feed_run_duration_seconds";
    family(perFeed, "summary", "How long the feed's runs took, fetch to last send.");
    for (const [, s, feed] of feeds) {
      sample(`${perFeed}_sum`, feed, s.durationSum);
      sample(`${perFeed}_count`, feed, s.durationCount);
    }

    const all = "courier_run_duration_seconds";
    family(all, "histogram", "How long feed runs took, all feeds.");
    let cumulative = 0;
    DURATION_BUCKETS.forEach((bound, i) => {
      cumulative += this.#buckets[i];
      sample(`${all}_bucket`, `le="${formatSampleValue(bound)}"`, cumulative);
    });
    sample(`${all}_bucket`, `le="+Inf"`, this.#durationCount);
    sample(`${all}_sum`, "", this.#durationSum);
    sample(`${all}_count`, "", this.#durationCount);

    eachFeed(
      "courier_feed_overlap_skips_total",
      "counter",
      "Scheduled runs skipped because the feed's previous run was still going.",
      (s) => s.overlapSkips,
    );

    family("courier_messenger_responses_total", "counter", "Bot API responses, by HTTP status.");
    for (const code of [...this.#responses.keys()].sort((a, b) => a - b)) {
      sample("courier_messenger_responses_total", `code="${code}"`, this.#responses.get(code)!);
    }

    if (this.#leases) {
      const { held, lost } = this.#leases();
      family("courier_leases_held", "gauge", "Channel leases this process holds (db_url).");
      sample("courier_leases_held", "", held);
      family(
        "courier_leases_lost_total",
        "counter",
        "Channel leases lost to expiry or to another process (db_url).",
      );
      sample("courier_leases_lost_total", "", lost);
    }

    family("courier_build_info", "gauge", "Always 1; the version of courier running.");
    sample("courier_build_info", `version="${escapeLabelValue(this.#version)}"`, 1);

    const process = this.#process();
    family(
      "process_cpu_seconds_total",
      "counter",
      "Total user and system CPU time spent in seconds.",
    );
    sample("process_cpu_seconds_total", "", process.cpuSeconds);
    family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
    sample("process_resident_memory_bytes", "", process.rss);
    family("courier_heap_used_bytes", "gauge", "JavaScript heap in use, in bytes.");
    sample("courier_heap_used_bytes", "", process.heapUsed);
    if (process.openFds !== null) {
      family("process_open_fds", "gauge", "Number of open file descriptors.");
      sample("process_open_fds", "", process.openFds);
    }
    if (process.maxFds !== null) {
      family("process_max_fds", "gauge", "Maximum number of open file descriptors.");
      sample("process_max_fds", "", process.maxFds);
    }
    family(
      "process_start_time_seconds",
      "gauge",
      "Start time of the process since the epoch, in seconds.",
    );
    sample("process_start_time_seconds", "", this.#startTime);

    return out.text();
  }
}
