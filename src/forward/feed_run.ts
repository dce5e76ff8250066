import type { FeedSettings } from "../config/types.ts";
import type { Deadlines } from "../time/deadlines.ts";
import type { ServerPauses } from "../feeds/retry_after.ts";
import type { Entry } from "../model/entry.ts";
import { type Logger, messageOf } from "../log/logger.ts";
import type { Outbox } from "../messenger/bot_api.ts";
import { MessageRefusedError, MessengerFatalError } from "../messenger/errors.ts";
import { partition } from "../filter/filter.ts";
import { type Message, plainMessage } from "../messenger/format.ts";
import { deliveryOf, messageFor } from "./messages.ts";
import { entryFilterOf } from "./compiled.ts";
import type { RunCounts, RunRecord } from "../store/db.ts";
import { firstSighting } from "./first_sighting.ts";
import type { Validators } from "../feeds/fetch.ts";
import type { FeedRead, ReadOptions } from "../feeds/read.ts";
import type { SlotRunner } from "./fetch_slots.ts";
import type { Turn } from "./turns.ts";

/** What a feed run needs from the state; `Store` provides it, a dry run reads only. */
export interface ForwardState {
  /** Whether the feed had its first sighting, and which of `ids` it has seen. */
  lookup(feed: string, ids: readonly string[]): Promise<{ known: boolean; seen: Set<string> }>;
  validators(feed: string): Promise<ReadonlyMap<string, Validators>>;
  recordFirstSighting(feed: string, skipped: readonly Entry[], at: Date): Promise<void>;
  /** Records entries the feed's filter dropped: seen, never to be posted. */
  recordFiltered(feed: string, filtered: readonly Entry[], at: Date): Promise<void>;
  markSent(feed: string, entry: Entry, chat: string, messageId: number, at: Date): Promise<void>;
  /** Records an entry the messenger refused for its content, in every form: never sent. */
  markRefused(feed: string, entry: Entry, chat: string, at: Date): Promise<void>;
  /**
   * Records the run. `validators` only for a fully successful run; `seen` (the id of every
   * entry the read parsed) whenever the feed's documents were parsed, for retention.
   */
  finishRun(
    run: RunRecord,
    validators?: Map<string, Validators>,
    seen?: readonly string[],
  ): Promise<void>;
  /** Called once at the end of a run: writes what finishRun may have held back. */
  flush?(): Promise<void>;
}

/** Where a successful feed run's time goes (the last-success file). */
export interface SuccessLog {
  record(feed: string, at: Date): Promise<void>;
  /** No more records are coming soon: write what is recorded without waiting to coalesce. */
  writeNow?(): void;
  /** Called once at the end of a run: makes what was recorded durable. */
  flush?(): Promise<void>;
}

export interface FeedResult extends RunCounts {
  channel: string;
  /** Entries the messenger refused for their content, even as plain text: recorded, not sent. */
  refused: number;
  /** New entries the feed's filter dropped: recorded as seen, never sent. */
  filtered: number;
  /** Where a failed run stopped: reading the feed, sending, or recording the run. */
  step?: "fetch" | "send" | "record";
}

export interface FeedRunContext {
  /** readFeed of src/feeds/read.ts: throws an error naming the URL when any fails. */
  read: (options: ReadOptions) => Promise<FeedRead>;
  state: ForwardState;
  outbox: Outbox;
  successLog: SuccessLog;
  logger: Logger;
  now: () => Date;
  /** The chat to send to for a configured channel (it may have migrated). */
  chatFor: (channel: string) => string;
  /** Bounds how many feeds fetch at once, and which go first (fetch_slots.ts). */
  fetchSlots: SlotRunner;
  /** Told when the feed gets its fetch slot: until then its run has not started. */
  onStart?: (feed: string) => void;
  /** HTTP client carrying the feed's proxy; undefined for a direct connection. */
  fetchClient?: Deno.HttpClient;
  fetchTimeoutMs?: number;
  /** The timer of the fetches' deadlines; default the process's. */
  deadlines?: Deadlines;
  /** The servers that asked not to be asked again yet; default the process's. */
  pauses?: ServerPauses;
  signal: AbortSignal;
  /**
   * The longest a messenger's 429 may hold a send before the feed fails for this run (its
   * entries kept); default no bound.
   */
  maxMessengerWaitMs?: number;
  /** Told after each message the messenger accepted (progress display). */
  onSent?: (feed: string) => void;
  /** Told at once when the messenger refuses the bot, so the other feeds stop too. */
  onFatal?: (error: MessengerFatalError) => void;
  /**
   * The last-success file as the process found it: a feed listed there succeeded before, so at
   * a first sighting (the state has no record of it: lost or moved) its entries were most
   * likely delivered already: it sends at most its first_time_limit, none without one.
   */
  priorSuccesses?: ReadonlyMap<string, Date>;
  /**
   * With state shared by several processes: whether this one holds the channel's lease now.
   * Asked before the run and before each send; without it the feed fails, nothing sent.
   */
  holds?: (channel: string) => boolean;
  /**
   * With state shared by several processes, fencing: until when this process may send to a
   * channel (the lease's trust, on the clock the outbox uses), asked by the outbox right before
   * each request; `distrust` stops every send until the lease is renewed, after a send the
   * state could not record.
   */
  fence?: ChannelFence;
}

/** See FeedRunContext.fence; src/forward/leases.ts gives it. */
export interface ChannelFence {
  /** Until when (monotonic ms) this run may send to `channel`: its lease as held now. */
  tenure(channel: string): () => number;
  distrust(): void;
}

/**
 * Runs one feed: read every URL, drop the entries seen before, apply the first-sighting limit,
 * then — once it is this feed's turn on its channel — send each entry oldest first, marking it
 * sent only after the messenger accepted it. Validators and the last-success time are written
 * only when the run fully succeeded, so a failed run is simply redone by the next one.
 * Never rejects: a failure is the feed's and comes back in the result; a MessengerFatalError
 * (the whole run must stop) is also passed to `onFatal`.
 */
export async function runFeed(
  feed: FeedSettings,
  turn: Turn,
  ctx: FeedRunContext,
): Promise<FeedResult> {
  const startedAt = ctx.now();
  const result: FeedResult = {
    feed: feed.name,
    channel: feed.channel,
    fetched: 0,
    new: 0,
    sent: 0,
    failed: 0,
    skipped: 0,
    refused: 0,
    filtered: 0,
    error: null,
  };
  let validators: Map<string, Validators> | undefined;
  let seen: string[] | undefined;
  // Taken before the plan: what it finds unsent is sent only under the lease it was found in.
  const until = ctx.fence?.tenure(feed.channel);
  if (ctx.holds && !ctx.holds(feed.channel)) {
    turn.done();
    result.error = leaseMissing(feed.channel);
    result.step = "fetch";
    return await finish(feed, result, startedAt, undefined, undefined, ctx);
  }
  try {
    let toSend: Entry[];
    try {
      const planned = await ctx.fetchSlots.run(
        () => plan(feed, ctx),
        () => ctx.onStart?.(feed.name),
      );
      toSend = planned.send;
      validators = planned.validators;
      seen = planned.seen;
      result.fetched = planned.fetched;
      result.skipped = planned.skipped;
      result.filtered = planned.filtered;
      result.new = toSend.length;
    } catch (error) {
      result.error = ctx.signal.aborted ? stopped(ctx.signal) : messageOf(error);
      // The first sighting is recorded while planning: a failure to write it is the state's.
      result.step = isStoreError(error) ? "record" : "fetch";
      return await finish(feed, result, startedAt, undefined, undefined, ctx);
    }
    // Nothing to send (the steady state): no need to wait for the channel.
    if (toSend.length > 0) {
      try {
        await abortable(turn.ready, ctx.signal);
        await deliver(feed, toSend, result, ctx, until);
      } catch (error) {
        // A 401 met by this feed, not one that stopped the run before this feed got to send.
        const fatal = error instanceof MessengerFatalError && error !== ctx.signal.reason;
        if (fatal) ctx.onFatal?.(error);
        result.error = ctx.signal.aborted && !fatal ? stopped(ctx.signal) : messageOf(error);
        result.failed = result.new - result.sent - result.refused;
        result.step = error instanceof NotRecorded ? "record" : "send";
      }
    }
  } finally {
    turn.done();
  }
  // Not awaited: this run's state is let go while the last-success file's write is waited for.
  return finish(
    feed,
    result,
    startedAt,
    result.error === null ? validators : undefined,
    seen,
    ctx,
  );
}

async function plan(feed: FeedSettings, ctx: FeedRunContext) {
  const validators = await ctx.state.validators(feed.name);
  const read = await ctx.read({
    urls: feed.urls,
    type: feed.type,
    validators,
    client: ctx.fetchClient,
    feed: feed.name,
    timeoutMs: ctx.fetchTimeoutMs,
    signal: ctx.signal,
    deadlines: ctx.deadlines,
    pauses: ctx.pauses,
  });
  for (const warning of read.warnings) ctx.logger.warn(warning, { feed: feed.name });
  // Unchanged since a successful read (the steady state): no entries, and that read made the
  // feed known, so there is nothing to look up.
  if (read.notModified.length > 0) {
    return {
      send: [],
      skipped: 0,
      filtered: 0,
      fetched: 0,
      validators: validatorsToStore(validators, read),
      seen: undefined,
    };
  }
  const ids = read.entries.map((e) => e.id);
  const { known, seen } = await ctx.state.lookup(feed.name, ids);
  let unseen = read.entries.filter((e) => !seen.has(e.id));
  let filtered: Entry[] = [];
  const filter = entryFilterOf(feed);
  if (filter && unseen.length > 0) {
    // Before the first-sighting limit: its newest N are the newest N the feed would post.
    const { kept, dropped } = partition(filter, unseen);
    unseen = kept;
    filtered = dropped.map((d) => d.entry);
    for (const { entry, reason } of dropped) {
      ctx.logger.debug("entry filtered out", {
        feed: feed.name,
        entry: entry.id,
        title: entry.title,
        reason,
      });
    }
  }
  let send = unseen;
  let skipped = 0;
  if (!known) {
    const before = ctx.priorSuccesses?.get(feed.name);
    // A feed that succeeded before but is unknown to the state keeps its own limit, else 0
    // (every entry recorded as seen, none sent): "no limit" would post again everything the
    // lost state had delivered.
    const limit = before === undefined ? feed.firstTimeLimit : Math.max(0, feed.firstTimeLimit);
    const split = firstSighting(unseen, limit);
    send = split.send;
    skipped = split.skip.length;
    // Recorded before anything is sent: a crash later must not turn the next run into a
    // first sighting again, or the limit would hold back entries that are genuinely new.
    await ctx.state.recordFirstSighting(feed.name, split.skip, ctx.now());
    if (before !== undefined) {
      ctx.logger.warn("the state has no record of a feed that succeeded before: first sighting", {
        feed: feed.name,
        last_success: before.toISOString(),
        sent: send.length,
        skipped,
      });
    } else if (skipped > 0) {
      // Says which key to change: a first run that holds back more than expected is found here.
      const key = feed.firstTimeLimitFrom === "feed"
        ? `feed ${feed.name}'s first_time_limit`
        : "the top-level first_time_limit";
      ctx.logger.info(
        `first sighting: ${unseen.length} entries, ${key} ${limit} sends the newest ` +
          `${send.length}; the ${skipped} older are recorded as seen, never sent`,
        { feed: feed.name, sent: send.length, skipped },
      );
    }
  }
  // Recorded before anything is sent, as the first sighting is: whatever happens to this run,
  // these are never posted, and a later filter applies only to later entries.
  if (filtered.length > 0) await ctx.state.recordFiltered(feed.name, filtered, ctx.now());
  return {
    send,
    skipped,
    filtered: filtered.length,
    fetched: read.entries.length,
    validators: validatorsToStore(validators, read),
    // Parsed: retention learns which entries the feed still holds (src/store/retention.ts).
    seen: ids,
  };
}

/** The validators to store, or undefined when they are the stored ones (no write needed). */
function validatorsToStore(
  stored: ReadonlyMap<string, Validators>,
  { validators }: { validators: Map<string, Validators> },
): Map<string, Validators> | undefined {
  let meaningful = 0;
  for (const [url, v] of validators) {
    if (v.etag === null && v.lastModified === null && v.bodyHash === null) continue;
    meaningful++;
    const old = stored.get(url);
    if (
      old === undefined || old.etag !== v.etag || old.lastModified !== v.lastModified ||
      old.bodyHash !== v.bodyHash
    ) return validators;
  }
  return meaningful === stored.size ? undefined : validators;
}

async function deliver(
  feed: FeedSettings,
  entries: Entry[],
  result: FeedResult,
  ctx: FeedRunContext,
  until: (() => number) | undefined,
) {
  let chat = ctx.chatFor(feed.channel);
  const delivery = deliveryOf(feed);
  for (const entry of entries) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    // The lease may have run out while the run waited (the database unreachable): another
    // process may hold the channel now, so nothing more goes out from here.
    if (ctx.holds && !ctx.holds(feed.channel)) throw new Error(leaseMissing(feed.channel));
    const message = messageFor(feed, entry);
    const send = (m: Message) =>
      ctx.outbox.send(chat, m, ctx.signal, { maxWaitMs: ctx.maxMessengerWaitMs, until });
    let sent;
    try {
      sent = await send(message);
    } catch (error) {
      if (!(error instanceof MessageRefusedError)) throw error;
      ctx.logger.warn("messenger refused an entry's message; sending it as plain text", {
        feed: feed.name,
        entry: entry.id,
        error: error.description,
      });
      try {
        sent = await send({ ...plainMessage(entry), ...delivery });
      } catch (again) {
        if (!(again instanceof MessageRefusedError)) throw again;
        // Refused in every form: waiting will not change that, and retrying it first on every
        // run would hold back every entry after it.
        try {
          await ctx.state.markRefused(feed.name, entry, again.chat, ctx.now());
        } catch (error) {
          throw new NotRecorded(messageOf(error));
        }
        result.refused++;
        ctx.logger.error("entry refused by the messenger; recorded and skipped", {
          feed: feed.name,
          entry: entry.id,
          link: entry.link,
          error: again.description,
        });
        continue;
      }
    }
    chat = sent.chat;
    // The messenger accepted it: it went out, whether or not it can be recorded.
    result.sent++;
    ctx.onSent?.(feed.name);
    try {
      await ctx.state.markSent(feed.name, entry, sent.chat, sent.messageId, ctx.now());
    } catch (error) {
      // Not marked sent, so the next run, here or in the process that takes the channel,
      // sends it again: the one duplicate to expect. No more go out until the database is
      // reached again, or each would be another.
      ctx.fence?.distrust();
      throw new NotRecorded(`${messageOf(error)}; 1 message may be sent again`);
    }
  }
}

/**
 * Records the run, then its success in the last-success file. The result comes back once the
 * file holds the success (or could not be written, which fails the run); until then only the
 * result is held, not the run: a tick's feeds finish faster than the file is written, and
 * thousands of them wait for the same write.
 */
async function finish(
  feed: FeedSettings,
  result: FeedResult,
  startedAt: Date,
  validators: Map<string, Validators> | undefined,
  seen: string[] | undefined,
  ctx: FeedRunContext,
): Promise<FeedResult> {
  const finishedAt = ctx.now();
  let recorded: Promise<void> | undefined;
  try {
    await ctx.state.finishRun(
      {
        feed: result.feed,
        startedAt,
        finishedAt,
        outcome: result.error === null ? "ok" : "failed",
        fetched: result.fetched,
        new: result.new,
        sent: result.sent,
        failed: result.failed,
        skipped: result.skipped,
        error: result.error,
      },
      validators,
      seen,
    );
    if (result.error === null) recorded = ctx.successLog.record(result.feed, finishedAt);
  } catch (error) {
    notRecorded(result, error, ctx.logger);
  }
  return recorded === undefined
    ? reported(feed, result, ctx.logger)
    : whenRecorded(recorded, feed, result, ctx.logger);
}

function whenRecorded(
  recorded: Promise<void>,
  feed: FeedSettings,
  result: FeedResult,
  logger: Logger,
): Promise<FeedResult> {
  return recorded.then(() => result, (error) => {
    notRecorded(result, error, logger);
    return reported(feed, result, logger);
  });
}

function notRecorded(result: FeedResult, error: unknown, logger: Logger): void {
  if (result.error === null) {
    result.error = messageOf(error);
    result.step = "record";
  } else {
    // The run's own failure (often the same full disk) stays the one reported.
    logger.warn("the failed run could not be recorded either", {
      feed: result.feed,
      error: messageOf(error),
    });
  }
}

/** The result, after the one line a failed run logs: which feed, where it stopped, why. */
function reported(feed: FeedSettings, result: FeedResult, logger: Logger): FeedResult {
  if (result.error !== null) {
    logger.error("feed failed", {
      feed: result.feed,
      url: feed.urls.length === 1 ? feed.urls[0] : feed.urls.join(" "),
      step: result.step,
      error: result.error,
      unsent: result.failed,
    });
  }
  return result;
}

function leaseMissing(channel: string): string {
  return `this process does not hold the lease of ${channel} (another process runs it, or the ` +
    "database could not be reached to renew it)";
}

/** The messenger took a message (or refused an entry for good), and the state could not record it. */
class NotRecorded extends Error {
  override name = "NotRecorded";
}

/** A failure of the state (src/store/failure.ts), told apart without loading the store. */
function isStoreError(error: unknown): boolean {
  return error instanceof Error && error.name === "StoreError";
}

function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

function stopped(signal: AbortSignal): string {
  return `stopped: ${messageOf(signal.reason)}`;
}
