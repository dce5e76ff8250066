/**
 * One request on one worker process: its time budget, its cancellation, and its answer,
 * buffered whole (bounded) or streamed (downloads). Which worker, and what happens to a worker
 * that must go, is the pool's business (pool.ts).
 */
import { Buffer } from "node:buffer";
import {
  encodeFrame,
  type Frame,
  FRAME_BODY,
  FRAME_END,
  FRAME_JSON,
  frameJson,
  type FrameReader,
  FrameTooLargeError,
  type WorkerEnd,
  type WorkerHead,
  type WorkerRequest,
} from "./protocol.ts";
import type { Deadline, Deadlines } from "../../time/deadlines.ts";
import { TimeLimitError } from "../sql/db.ts";

/**
 * The request ran (or waited, or both) past the time limit; a running query was killed. The
 * same message as a worker that stopped its query itself (TimeLimitError).
 */
export class QueryTimeoutError extends TimeLimitError {
  override name = "QueryTimeoutError";
}

/** A worker died or could not start; the message is safe to show. */
export class WorkerError extends Error {
  override name = "WorkerError";
}

/** The client went away: its request was dropped from the queue or its worker killed. */
export class RequestCancelledError extends WorkerError {
  override name = "RequestCancelledError";
  constructor() {
    super("the client went away; the query was stopped");
  }
}

/** A (non-download) answer larger than the pool holds in memory for one request. */
export class AnswerTooLargeError extends WorkerError {
  override name = "AnswerTooLargeError";
  constructor(readonly limitBytes: number) {
    super(
      `the answer is larger than ${
        Math.round(limitBytes / 1024 / 1024)
      } MiB: select fewer rows or columns, or download it (format=csv, xml or json)`,
    );
  }
}

/**
 * A request taken off its worker for a fresher one or another client's; it waits for a
 * worker again.
 */
export class PreemptedError extends Error {}

/** An answer: the head, and either the whole body or a stream of it (downloads). */
export interface Answer {
  head: WorkerHead;
  body: Uint8Array | ReadableStream<Uint8Array>;
  /** Resolves when the worker finished the answer; null when it was cut short. */
  done: Promise<WorkerEnd | null>;
}

/** Why the pool killed a worker (tests and logs tell cancellation from a time limit). */
export type KillReason =
  | "timeout"
  | "cancelled"
  | "stalled"
  | "too-large"
  | "failed"
  | "closed"
  | "preempted"
  | "recycled";

/** The worker a job runs on, as the job sees it. */
export interface JobWorker {
  readonly reader: FrameReader;
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly spare: boolean;
  /** Takes the request off the worker; set while it may safely run again elsewhere. */
  preempt: (() => void) | null;
}

export interface JobLimits {
  /** The time limit, for messages. */
  limitMs: number;
  /** When the request's time is up (performance.now()), its time in the queue spent already. */
  deadline: number;
  maxAnswerBytes: number;
  /** How long a download may wait for its client to take bytes. */
  stallMs: number;
  /** Whether the request may run a second time (it cannot have written). */
  rerunnable: boolean;
  /**
   * A request whose client hangs up this soon after it started running is given until then to
   * finish before its worker is killed (default CANCEL_GRACE_MS).
   */
  cancelGraceMs?: number;
  /** Where the time limit is kept (the pool's, one timer for all its requests). */
  deadlines: Deadlines;
  /**
   * The worker stops the request itself at its time limit (a remote database: its client is
   * asynchronous, and killing the worker would leave the server's transaction open): its
   * process is killed only SELF_STOP_GRACE_MS later, if it has not answered by then, and a
   * client that goes away does not kill it either (the request ends by its limit).
   */
  selfStopping?: boolean;
}

/** How long past the time limit a self-stopping worker has to answer before it is killed. */
export const SELF_STOP_GRACE_MS = 2_000;

/**
 * A cheap query ends sooner than a new worker starts: killing its worker because the client
 * hung up a moment earlier (a page reloading, a load generator stopping) only cost a process
 * start and a cold worker. A query that has run this long is stopped at once, as before.
 */
export const CANCEL_GRACE_MS = 20;

export interface JobHooks {
  /** The worker must go (the pool kills it and starts another); `ranMs`: the job's run time. */
  kill(reason: KillReason, ranMs: number): void;
  /** The worker finished the request and is free. */
  release(end: WorkerEnd): void;
  /** Registers the job's stop for a shutdown; returns the function that unregisters it. */
  track(stop: (error: Error, reason: KillReason) => void): () => void;
}

/**
 * Runs one request on `w`. The time limit runs until `limits.deadline`, except, for a
 * download, while the client has not taken the last chunk (bounded by the stall limit
 * instead). `signal` is the client's: when it aborts, the worker is killed. A download that
 * cannot finish errors its stream, so the transfer fails rather than ending cleanly.
 */
export async function runJob(
  w: JobWorker,
  req: WorkerRequest,
  download: boolean,
  limits: JobLimits,
  hooks: JobHooks,
  signal?: AbortSignal,
): Promise<Answer> {
  const { limitMs: limit, deadline, maxAnswerBytes, stallMs } = limits;
  const started = performance.now();
  let failure: Error | null = null;
  let ended = false;
  let budget = deadline - started + (limits.selfStopping ? SELF_STOP_GRACE_MS : 0);
  let headIn = false;
  let resumedAt = started;
  const deadlines = limits.deadlines;
  let timer: Deadline | undefined;
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let errorStream: (error: Error) => void = () => {};
  let settleDownload: (end: WorkerEnd | null) => void = () => {};

  const cleanup = () => {
    if (timer) deadlines.cancel(timer);
    clearTimeout(stallTimer);
    clearTimeout(graceTimer);
    signal?.removeEventListener("abort", onAbort);
    untrack();
    w.preempt = null;
  };
  // The one way a request ends early: its worker is killed, which also ends any pending read
  // or write on its pipes; `failure` turns that end into the right error. (Not Promise.race
  // against a timeout promise: every race leaves a reaction on that promise which keeps its
  // result alive until the promise settles, so a download retained every frame it passed on.)
  const stop = (error: Error, reason: KillReason): void => {
    if (failure || ended) return;
    failure = error;
    cleanup();
    hooks.kill(reason, performance.now() - started);
    // A download that cannot finish must fail as a transfer. Deno logs the error (one line);
    // for a client that is gone there is no transfer left to fail.
    if (reason === "cancelled") settleDownload(null);
    else errorStream(error);
  };
  const cancel = () => stop(new RequestCancelledError(), "cancelled");
  const onAbort = () => {
    if (limits.selfStopping && !headIn) return;
    const wait = (limits.cancelGraceMs ?? CANCEL_GRACE_MS) - (performance.now() - started);
    if (wait <= 0) cancel();
    else graceTimer = setTimeout(cancel, wait);
  };
  const resume = () => {
    resumedAt = performance.now();
    timer = deadlines.add(
      resumedAt + Math.max(0, budget),
      () => stop(new QueryTimeoutError(limit), "timeout"),
    );
  };
  const pause = () => {
    if (timer) deadlines.cancel(timer);
    budget -= performance.now() - resumedAt;
  };
  const failed = (): Error => {
    stop(new WorkerError("the query worker failed"), "failed");
    return failure!;
  };
  const next = async (): Promise<Frame> => {
    let frame: Frame | null = null;
    try {
      frame = await w.reader.read();
    } catch (error) {
      if (error instanceof FrameTooLargeError && !failure) {
        stop(new AnswerTooLargeError(maxAnswerBytes), "too-large");
      }
    }
    if (failure) throw failure;
    if (!frame) throw failed();
    return frame;
  };
  const finish = (frame: Frame): WorkerEnd => {
    ended = true;
    cleanup();
    const end = frameJson<WorkerEnd>(frame);
    hooks.release(end);
    return end;
  };

  const untrack = hooks.track(stop);
  // A remote request on a regular worker stops itself (killing it would leave the server's
  // transaction open): it is not handed over.
  if (limits.rerunnable && (w.spare || !limits.selfStopping)) {
    w.preempt = () => stop(new PreemptedError(), "preempted");
  }
  signal?.addEventListener("abort", onAbort, { once: true });
  // A client gone before its request reached the worker: nothing to wait for.
  if (signal?.aborted && !limits.selfStopping) cancel();
  resume();
  let head: WorkerHead;
  try {
    if (failure) throw failure;
    // The write is not awaited on its own: no answer can come before the worker has read the
    // whole request, so one wait per request does instead of two. A write that fails stops the
    // job, which kills the worker and so ends the read.
    w.writer.write(encodeFrame(FRAME_JSON, JSON.stringify(req))).catch(() => void failed());
    head = frameJson<WorkerHead>(await next());
    headIn = true;
  } catch {
    throw failure ?? failed();
  }

  if (!download || head.status !== 200) {
    const parts: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const frame = await next();
        if (frame.kind === FRAME_BODY) {
          size += frame.payload.length;
          if (size > maxAnswerBytes) {
            stop(new AnswerTooLargeError(maxAnswerBytes), "too-large");
            throw failure;
          }
          parts.push(frame.payload);
        } else if (frame.kind === FRAME_END) {
          const end = finish(frame);
          // A worker sends a buffered answer as one frame: its payload is the body as it is.
          const body = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
          // Finished within the grace for a client that is gone: not a call anyone received.
          return { head, body, done: Promise.resolve(signal?.aborted ? null : end) };
        }
      }
    } catch {
      throw failure ?? failed();
    }
  }

  // A download: the client's turn from each chunk handed over until the next pull, bounded by
  // the stall limit instead of the time limit. What the worker computes meanwhile is bounded
  // by the pipe it writes to, which fills unless the server reads.
  const done = new Promise<WorkerEnd | null>((r) => (settleDownload = r));
  const clientTurn = () => {
    pause();
    stallTimer = setTimeout(
      () => stop(new WorkerError("the client stopped reading the download"), "stalled"),
      stallMs,
    );
  };
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      errorStream = (error) => {
        settleDownload(null);
        try {
          controller.error(transferError(error.message));
        } catch { /* already closed */ }
      };
    },
    pull: async (controller) => {
      clearTimeout(stallTimer);
      resume();
      try {
        const frame = await next();
        if (frame.kind === FRAME_BODY) {
          clientTurn();
          controller.enqueue(frame.payload);
        } else if (frame.kind === FRAME_END) {
          const end = finish(frame);
          settleDownload(end);
          // The worker ended the body early (an SQL error after the head went out): the
          // file is incomplete, so the transfer must fail rather than end cleanly.
          if (end.ok) controller.close();
          else controller.error(transferError("the query failed during the download"));
        }
      } catch {
        // stop() has errored the stream already, so Deno ends the transfer without its final
        // chunk: the client sees a failed download, not a short file. Only a client that is
        // gone gets a quiet end (there is no transfer left to fail, and nothing to log).
        try {
          if (failure instanceof RequestCancelledError) controller.close();
          else controller.error(transferError(failure?.message ?? "the query worker failed"));
        } catch { /* errored already */ }
      }
    },
    cancel: () => stop(new RequestCancelledError(), "cancelled"),
  }, { highWaterMark: 0 });
  clientTurn();
  return { head, body, done };
}

/**
 * The error that fails a download's transfer. Deno's server logs it to stderr; with its stack
 * cut to one line, that log is one line naming what happened, not a trace of our internals.
 */
function transferError(message: string): Error {
  const error = new Error(message);
  error.stack = `courier browse: a download ended early: ${message}`;
  return error;
}
