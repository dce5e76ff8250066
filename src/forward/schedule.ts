/**
 * When each feed is due: a pure schedule over croner, fed the feeds' cron expressions, their
 * last successes and the time; it never reads a clock or sets a timer (the loop does both).
 *
 * Slots are the instants croner gives for a feed's expression, in the time zone given, else
 * the process's local zone (which Deno takes from `TZ`). Daylight-saving changes are croner's
 * (croner 11, Vixie cron's rules): a fixed-time job (one value in minute and hour, e.g.
 * `30 2 * * *`) whose time falls in the spring-forward gap runs at the end of the gap, and
 * once in the fall-back overlap; an interval job (`*`, a step, a list or a range) skips the
 * times in the gap and runs on both passes through the overlap (they are different instants).
 *
 * The rules this module adds, each tested:
 * - catch-up: a feed (at start, or added or changed by a reload) whose latest slot at or before
 *   now is later than its last success, or that never succeeded, is due at once; one that
 *   succeeded since its latest slot waits for its next one;
 * - a forward jump of the wall clock (suspend, NTP step) makes a feed with missed slots due
 *   once, not once per missed slot;
 * - a backward step never makes a feed due twice for the same slot: a feed is next due at its
 *   first slot after the time it was last due, whatever the clock says later.
 */
import { Cron } from "croner";

export interface ScheduledFeed {
  name: string;
  /** Five-field cron expression, validated by the config loader. */
  cron: string;
}

/** A feed that is due now, and the slot its run stands for. */
export interface Due {
  feed: string;
  /** The latest of the feed's slots at or before now (null: the feed has none yet). */
  slot: Date | null;
}

interface FeedState {
  name: string;
  cron: string;
  job: Cron;
  /** When the feed is next due (ms since the epoch); Infinity when it never is again. */
  next: number;
  /** Whether `next` is one of the feed's slots (not a catch-up time). */
  nextIsSlot: boolean;
}

/**
 * Every feed's next due time. `update` installs a config's feeds (at start and on reload),
 * `due` answers and advances what is due at a time, `nextAt` says when to look again.
 * Cost per `due` call: one comparison per feed, and croner's work only for due feeds.
 */
export class Schedule {
  /** In config order (the order `due` lists feeds in). */
  #feeds: FeedState[] = [];
  /** The same states by name: `nextFor` is asked for every feed at start and at each tick. */
  #byName = new Map<string, FeedState>();
  /** Croner jobs by expression: feeds share a few schedules, and a job is dear to build. */
  #jobs = new Map<string, Cron>();

  /** `timezone`: the IANA zone of every expression; default the process's local zone. */
  constructor(private readonly timezone?: string) {}

  /**
   * Installs `feeds` (config order) at `now`. A feed already scheduled with the same expression
   * keeps its next due time; a new or changed one gets the catch-up rule against `lastSuccess`
   * (feed name → time of its last successful run). Returns the names added, changed, removed.
   */
  update(
    feeds: readonly ScheduledFeed[],
    lastSuccess: ReadonlyMap<string, Date>,
    now: Date,
  ): { added: string[]; changed: string[]; removed: string[] } {
    const old = new Map(this.#feeds.map((f) => [f.name, f]));
    const jobs = new Map<string, Cron>();
    const added: string[] = [];
    const changed: string[] = [];
    // Feeds share a few expressions; croner's answer for one expression at `now` serves all.
    const answers = new CronAnswers(now);
    this.#feeds = feeds.map((feed) => {
      const job = this.#jobs.get(feed.cron) ?? jobs.get(feed.cron) ?? this.#job(feed.cron);
      jobs.set(feed.cron, job);
      const kept = old.get(feed.name);
      old.delete(feed.name);
      if (kept && kept.cron === feed.cron) return { ...kept, job };
      (kept ? changed : added).push(feed.name);
      const next = catchUp(answers, job, lastSuccess, feed, now);
      return { name: feed.name, cron: feed.cron, job, next, nextIsSlot: next !== now.getTime() };
    });
    this.#jobs = jobs;
    this.#byName = new Map(this.#feeds.map((f) => [f.name, f]));
    return { added, changed, removed: [...old.keys()] };
  }

  /**
   * The feeds due at `now`, in config order. Each is then next due at its first slot after
   * `now`: however many slots it missed, it is due once; and a clock stepped back before `now`
   * cannot make it due again before that slot.
   */
  due(now: Date): Due[] {
    const t = now.getTime();
    const due: Due[] = [];
    // Feeds due together mostly share an expression and a slot: one croner call for them all.
    const answers = new CronAnswers(now);
    for (const feed of this.#feeds) {
      if (feed.next > t) continue;
      // The steady state: the slot it waited for is the latest one, and the slot after it is
      // the next (one croner call). After a jump or a catch-up, both are looked up from now.
      const after = feed.nextIsSlot ? answers.nextAfter(feed.job, feed.next) : -Infinity;
      if (after > t) {
        due.push({ feed: feed.name, slot: new Date(feed.next) });
        feed.next = after;
      } else {
        due.push({ feed: feed.name, slot: answers.latestSlot(feed.job) });
        feed.next = answers.nextAfter(feed.job, t);
      }
      feed.nextIsSlot = true;
    }
    return due;
  }

  /** The earliest time a feed is next due, or null when none ever is. */
  nextAt(): Date | null {
    let next = Infinity;
    for (const feed of this.#feeds) if (feed.next < next) next = feed.next;
    return next === Infinity ? null : new Date(next);
  }

  /** When `feed` is next due (a past time: at once), or null if never or unknown. */
  nextFor(feed: string): Date | null {
    const state = this.#byName.get(feed);
    return state && state.next !== Infinity ? new Date(state.next) : null;
  }

  /** The feeds scheduled, in config order. */
  get names(): string[] {
    return this.#feeds.map((f) => f.name);
  }

  #job(cron: string): Cron {
    return new Cron(cron, { mode: "5-part", paused: true, timezone: this.timezone });
  }
}

/**
 * When a feed new to the schedule is first due: now if it never succeeded or its latest slot
 * at or before now is later than its last success (it missed that slot), else its next slot.
 */
function catchUp(
  answers: CronAnswers,
  job: Cron,
  lastSuccess: ReadonlyMap<string, Date>,
  feed: ScheduledFeed,
  now: Date,
): number {
  const last = lastSuccess.get(feed.name);
  const slot = answers.latestSlot(job);
  if (last === undefined || (slot !== null && slot.getTime() > last.getTime())) {
    return now.getTime();
  }
  return answers.nextAfter(job, now.getTime());
}

/**
 * Croner's answers within one call of `update` or `due` (one `now`), by job and time: they
 * depend on nothing else, and thousands of feeds share a handful of expressions.
 */
class CronAnswers {
  readonly #latest = new Map<Cron, Date | null>();
  readonly #next = new Map<Cron, Map<number, number>>();

  constructor(private readonly now: Date) {}

  latestSlot(job: Cron): Date | null {
    let slot = this.#latest.get(job);
    if (slot === undefined) this.#latest.set(job, slot = latestSlot(job, this.now));
    // A copy each: callers keep the slots they are given.
    return slot === null ? null : new Date(slot);
  }

  nextAfter(job: Cron, time: number): number {
    let byTime = this.#next.get(job);
    if (byTime === undefined) this.#next.set(job, byTime = new Map());
    let next = byTime.get(time);
    if (next === undefined) byTime.set(time, next = nextAfter(job, new Date(time)));
    return next;
  }
}

/** The latest slot at or before `now`, or null. */
function latestSlot(job: Cron, now: Date): Date | null {
  // previousRuns looks strictly before its reference.
  return job.previousRuns(1, new Date(now.getTime() + 1))[0] ?? null;
}

/** The first slot strictly after `now` (ms since the epoch), or Infinity. */
function nextAfter(job: Cron, now: Date): number {
  return job.nextRun(now)?.getTime() ?? Infinity;
}
