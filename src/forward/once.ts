import type { FeedSettings } from "../config/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Outbox } from "../messenger/bot_api.ts";
import { type FeedResult, type ForwardState, runFeed, type SuccessLog } from "./feed_run.ts";
import type { FeedReader } from "./reader.ts";
import { ChannelTurns, Semaphore } from "./turns.ts";

export interface OnceOptions {
  /** The feeds to run, in config order (the order of delivery on a shared channel). */
  feeds: FeedSettings[];
  read: FeedReader;
  state: ForwardState;
  outbox: Outbox;
  successLog: SuccessLog;
  logger: Logger;
  /** How many feeds fetch at once. */
  concurrency: number;
  /** Chat migrations known from earlier runs: old id → new id. */
  migrations?: Map<string, string>;
  /** One key for every feed's turn, so a dry run prints feed by feed; else per channel. */
  serialize?: boolean;
  /** HTTP client for a feed's proxy, or undefined for direct. */
  fetchClientFor?: (feed: FeedSettings) => Deno.HttpClient | undefined;
  fetchTimeoutMs?: number;
  now?: () => Date;
  onFeedDone?: (result: FeedResult) => void;
  onSent?: (feed: string) => void;
}

export interface OnceSummary {
  results: FeedResult[];
  /** Set when the run was stopped for every feed (the messenger refused the bot). */
  fatal: string | null;
}

/**
 * Runs each feed once: up to `concurrency` fetching at a time, each channel's deliveries one
 * feed after another in config order. A fatal messenger error (401) stops every feed; any
 * other failure stays with its feed.
 */
export async function runOnce(options: OnceOptions): Promise<OnceSummary> {
  const controller = new AbortController();
  const migrations = options.migrations ?? new Map<string, string>();
  const turns = new ChannelTurns();
  const fetchSlots = new Semaphore(options.concurrency);
  const now = options.now ?? (() => new Date());
  let fatal: string | null = null;

  const chatFor = (channel: string) => {
    let chat = channel;
    // Follow chains of migrations, guarding against a cycle in hand-edited data.
    for (let i = 0; i < 10 && migrations.has(chat); i++) chat = migrations.get(chat)!;
    return chat;
  };

  // The last-success file coalesces records by waiting a little before each write; once every
  // feed has recorded its success or finished without one, nothing else is coming. Every run
  // row has been handed to the state by then too, so its end-of-run write starts at the same
  // time (the database works on this thread, the file's writes on others).
  let unsettled = options.feeds.length;
  let stateFlush: Promise<void> | undefined;
  const settled = () => {
    if (--unsettled > 0) return;
    options.successLog.writeNow?.();
    stateFlush = options.state.flush?.();
    // Awaited at the end; until then a failure must not count as unhandled.
    stateFlush?.catch(() => {});
  };

  const runs = options.feeds.map(async (feed) => {
    // Turns are taken synchronously here, in config order.
    const turn = turns.take(options.serialize ? "*" : feed.channel);
    let recorded = false;
    const successLog: SuccessLog = {
      record: (name, at) => {
        recorded = true;
        const done = options.successLog.record(name, at);
        settled();
        return done;
      },
    };
    const result = await runFeed(feed, turn, {
      read: options.read,
      state: options.state,
      outbox: options.outbox,
      successLog,
      logger: options.logger,
      now,
      chatFor,
      fetchSlots,
      fetchClient: options.fetchClientFor?.(feed),
      fetchTimeoutMs: options.fetchTimeoutMs,
      signal: controller.signal,
      onSent: options.onSent,
      onFatal: (error) => {
        if (fatal !== null) return;
        fatal = error.message;
        options.logger.error("messenger refused the bot; stopping the run", {
          error: error.message,
        });
        controller.abort(error);
      },
    });
    if (!recorded) settled();
    options.onFeedDone?.(result);
    return result;
  });
  let results: FeedResult[];
  try {
    results = await Promise.all(runs);
  } finally {
    // Independent: the database's commit and the file's fsync overlap.
    await Promise.all([
      settle(
        "the runs of unchanged feeds could not be recorded",
        stateFlush ?? options.state.flush?.(),
      ),
      settle("the last-success file could not be flushed", options.successLog.flush?.()),
    ]);
  }
  return { results, fatal };

  /** Waits for an end-of-run flush; a failure there is logged, it belongs to no feed. */
  async function settle(what: string, flushing: Promise<void> | undefined) {
    try {
      await flushing;
    } catch (error) {
      options.logger.error(what, { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
