import type { FeedSettings } from "../config/types.ts";
import { type Clock, realClock } from "../time/clock.ts";
import { messageOf } from "../log/logger.ts";
import type { MessengerFatalError } from "../messenger/errors.ts";
import { type FeedResult, type FeedRunContext, runFeed, type SuccessLog } from "./feed_run.ts";
import { DEFAULT_TIMEOUT_MS } from "../feeds/read.ts";
import { feedOrigin, FetchSlots, heldSlot, type Slot } from "./fetch_slots.ts";
import { ChannelTurns, type Turn } from "./turns.ts";

/**
 * What a messenger 401 (the bot itself refused) does: `stop` ends every feed of the forwarder
 * (a one-shot run: nothing can be delivered, and the user is there to read why); `continue`
 * fails the feed that met it, logs an error each time, and lets the next runs try again (a
 * long-lived loop: the user fixes the token and reloads).
 */
export type UnauthorizedPolicy = "stop" | "continue";

/** What every feed's run shares (FeedRunContext's parts but those of one run), and the rest. */
export interface ForwarderOptions extends
  Omit<
    FeedRunContext,
    "now" | "chatFor" | "fetchSlots" | "fetchClient" | "signal" | "onFatal"
  > {
  /** How many feeds fetch at once, over every run of this forwarder. */
  concurrency: number;
  /** Chat migrations known from earlier runs (old id → new id); the forwarder keeps it. */
  migrations?: Map<string, string>;
  /** One key for every feed's turn, so a dry run prints feed by feed; else per channel. */
  serialize?: boolean;
  /** HTTP client for a feed's proxy, or undefined for direct. */
  fetchClientFor?: (feed: FeedSettings) => Deno.HttpClient | undefined;
  /** Default the process's clock; its wall time is stored with runs and entries. */
  clock?: Clock;
  /** Stops every run of the forwarder (a signal from the user, the end of a grace period). */
  signal?: AbortSignal;
  /** Default `stop`. */
  onUnauthorized?: UnauthorizedPolicy;
  onFeedDone?: (result: FeedResult) => void;
}

export interface RunSummary {
  results: FeedResult[];
  /** Set when the messenger refused the bot during this run (a 401). */
  fatal: string | null;
}

/**
 * Runs feeds, once or for as long as the process lives: one set of channel turns (feeds that
 * share a channel deliver one after the other, in the order they were started, across runs),
 * one bound on concurrent fetches, and one map of chat migrations, whatever the number of runs
 * in progress.
 */
export class Forwarder {
  readonly #options: ForwarderOptions;
  readonly #turns = new ChannelTurns();
  readonly #fetchSlots: FetchSlots;
  readonly #migrations: Map<string, string>;
  readonly #controller = new AbortController();
  readonly #now: () => Date;
  readonly #policy: UnauthorizedPolicy;

  constructor(options: ForwarderOptions) {
    this.#options = options;
    this.#migrations = options.migrations ?? new Map();
    const clock = options.clock ?? realClock;
    this.#fetchSlots = new FetchSlots(
      options.concurrency,
      clock,
      (options.fetchTimeoutMs ?? DEFAULT_TIMEOUT_MS) / 2,
    );
    this.#now = () => new Date(clock.now());
    this.#policy = options.onUnauthorized ?? "stop";
    const outside = options.signal;
    if (outside?.aborted) this.#controller.abort(outside.reason);
    else {
      outside?.addEventListener("abort", () => this.#controller.abort(outside.reason), {
        once: true,
      });
    }
  }

  /** Aborted when the outside signal is, or when a 401 stopped a forwarder that stops. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The chat to send to for a configured channel, following its migrations. */
  chatFor = (channel: string): string => {
    let chat = channel;
    // Follow chains of migrations, guarding against a cycle in hand-edited data.
    for (let i = 0; i < 10 && this.#migrations.has(chat); i++) chat = this.#migrations.get(chat)!;
    return chat;
  };

  /**
   * Runs `feeds` now, each once: up to `concurrency` fetching at a time (shared with every
   * other run of this forwarder), each channel's deliveries one feed after another in the
   * order given. Resolves once every feed has finished and the end-of-run writes are done;
   * never rejects for a feed's failure, which comes back in its result.
   */
  async run(feeds: FeedSettings[]): Promise<RunSummary> {
    const options = this.#options;
    let fatal: string | null = null;

    // The last-success file coalesces records by waiting a little before each write; once every
    // feed has recorded its success or finished without one, nothing else is coming from this
    // run. Every run row has been handed to the state by then too, so its buffered rows' write
    // starts at the same time (the database works on this thread, the file's writes on others).
    let unsettled = feeds.length;
    let stateFlush: Promise<void> | undefined;
    const settled = () => {
      if (--unsettled > 0) return;
      options.successLog.writeNow?.();
      stateFlush = options.state.flush?.();
      // Awaited at the end; until then a failure must not count as unhandled.
      stateFlush?.catch(() => {});
    };

    // A feed waiting for its fetch slot is a callback in the slots' queue (with its turn, taken
    // here synchronously, in the order given); only with a slot does it become a run. Thousands
    // of feeds due together then hold little more than their place in the queue.
    const results: FeedResult[] = new Array(feeds.length);
    let running = feeds.length;
    let ended!: () => void;
    let broke!: (error: unknown) => void;
    const all = new Promise<void>((resolve, reject) => {
      ended = resolve;
      broke = reject;
    });
    if (running === 0) ended();
    feeds.forEach((feed, i) => {
      const turn = this.#turns.take(options.serialize ? "*" : feed.channel);
      this.#fetchSlots.take(feedOrigin(feed.urls[0]), (slot) => {
        // In an executor, so that a throw on the way in rejects the run instead of the slots.
        new Promise<FeedResult>((resolve) => {
          resolve(this.#runFeed(feed, turn, slot, settled, (error) => fatal ??= error));
        }).then((result) => {
          results[i] = result;
          if (--running === 0) ended();
        }, broke);
      });
    });
    try {
      await all;
    } finally {
      await this.flush(stateFlush);
    }
    return { results, fatal };
  }

  /**
   * One feed's run, once it has its fetch slot; `settled` is told once it has no more to
   * record. Not an async function: a run whose result waits for the last-success file holds
   * nothing of this frame but what the callback below needs.
   */
  #runFeed(
    feed: FeedSettings,
    turn: Turn,
    slot: Slot,
    settled: () => void,
    onFatal: (message: string) => void,
  ): Promise<FeedResult> {
    const options = this.#options;
    let recorded = false;
    const successLog: SuccessLog = {
      record: (name, at) => {
        recorded = true;
        const done = options.successLog.record(name, at);
        settled();
        return done;
      },
    };
    return runFeed(feed, turn, {
      ...options,
      successLog,
      now: this.#now,
      chatFor: this.chatFor,
      fetchSlots: heldSlot(slot),
      fetchClient: options.fetchClientFor?.(feed),
      signal: this.#controller.signal,
      onFatal: (error) => {
        onFatal(error.message);
        this.#unauthorized(feed, error);
      },
    }).then((result) => {
      if (!recorded) settled();
      options.onFeedDone?.(result);
      return result;
    });
  }

  #unauthorized(feed: FeedSettings, error: MessengerFatalError): void {
    if (this.#policy === "continue") {
      // Every attempt says it: the loop goes on, and only the user can fix the token.
      // The error says where the token came from and what changes it (a reload may not).
      this.#options.logger.error("messenger refused the bot token", {
        feed: feed.name,
        error: error.message,
      });
      return;
    }
    if (this.#controller.signal.aborted) return;
    this.#options.logger.error("messenger refused the bot; stopping the run", {
      error: error.message,
    });
    this.#controller.abort(error);
  }

  /**
   * Writes out what runs left buffered: the run records (`stateFlush` when one is under way)
   * and the last-success file. The one place that does, after each run and when the loop
   * stops. Independent: the database's commit and the file's fsync overlap.
   */
  async flush(stateFlush?: Promise<void>): Promise<void> {
    const { state, successLog } = this.#options;
    await Promise.all([
      this.#settle("the runs could not be recorded", stateFlush ?? state.flush?.()),
      this.#settle("the last-success file could not be flushed", successLog.flush?.()),
    ]);
  }

  /** Waits for an end-of-run flush; a failure there is logged, it belongs to no feed. */
  async #settle(what: string, flushing: Promise<void> | undefined): Promise<void> {
    try {
      await flushing;
    } catch (error) {
      this.#options.logger.error(what, { error: messageOf(error) });
    }
  }
}
