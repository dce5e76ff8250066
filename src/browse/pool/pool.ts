import {
  encodeFrame,
  FRAME_JSON,
  frameJson,
  FrameReader,
  type WorkerConfig,
  type WorkerRequest,
} from "./protocol.ts";
import {
  type Answer,
  type KillReason,
  PreemptedError,
  QueryTimeoutError,
  RequestCancelledError,
  runJob,
  WorkerError,
} from "./job.ts";
import { type SpawnWorker, workerSpawner } from "./spawn.ts";
import { evictee, type Held, owing, pickWaiter, servable } from "./fair.ts";
import { isRemote } from "../sql/db_url.ts";
import { realClock } from "../../time/clock.ts";
import { type Deadline, Deadlines } from "../../time/deadlines.ts";

export { type Answer, QueryTimeoutError, WorkerError } from "./job.ts";

/** Every worker is busy and the queue is full: answer 503 with `Retry-After`. */
export class QueueFullError extends Error {
  override name = "QueueFullError";
  constructor(readonly retryAfterSeconds: number) {
    super("the server is busy (every query worker is taken and the queue is full): retry later");
  }
}

/** Waiting requests allowed per worker before new ones are refused with 503. */
export const QUEUE_PER_WORKER = 4;
/**
 * The most a non-download answer may hold in the server's memory. Such an answer is buffered
 * whole (so a slow client never holds a worker); past this it is refused, not buffered: a
 * 480 MB answer raised the server's RSS from 63 MB to 1.9 GB before.
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/**
 * How long an answer held in the server may sit with its client not taking any bytes before it
 * is dropped (answer_budget.ts).
 */
export const STALL_MS = 30_000;
/**
 * How long a download may sit with its client not taking any bytes before it is abandoned
 * (the worker killed, the transfer failed). Waiting on a slow client does not count against
 * the time limit, so without this bound a client that stops reading would hold a worker, and
 * on a rollback-journal file a read lock that blocks outside writers, forever; three stalled
 * downloads held every worker for 30 s.
 */
export const DOWNLOAD_STALL_MS = 10_000;
/**
 * How long an idle spare worker is kept for the next fresh request while the regular workers
 * stay busy: retiring it at once made every cheap query in a steady stream wait for a new one.
 */
const SPARE_LINGER_MS = 10_000;
/** How many query texts the pool remembers as having run past the time limit. */
const SLOW_MEMORY = 256;

/** What the pool did, for observers (tests watch requests queue, run and workers die). */
export type PoolEvent =
  | { type: "queued"; queued: number }
  | { type: "dropped"; reason: "timeout" | "cancelled" | "full" }
  | { type: "run"; pid: number; suspect: boolean; client: string }
  | { type: "spare"; pid: number }
  | { type: "killed"; pid: number; reason: KillReason };

export interface PoolOptions {
  size: number;
  timeoutMs: number;
  config: WorkerConfig;
  spawn?: SpawnWorker;
  /** Requests that may wait for a worker; default QUEUE_PER_WORKER × size. */
  maxQueue?: number;
  /** Default MAX_ANSWER_BYTES. */
  maxAnswerBytes?: number;
  /** Default DOWNLOAD_STALL_MS. */
  stallMs?: number;
  /**
   * Downloads that may run at once; default one fewer than the workers (at least 1), so a
   * download never takes the last worker from the other requests.
   */
  maxDownloads?: number;
  /**
   * Extra short-lived workers started when every worker has been on one request for
   * `longMs`; default half the size, at least 1.
   */
  spares?: number;
  /** Default: a quarter of the time limit, at most 250 ms. */
  longMs?: number;
  /** How long a cancelled request may go on to finish; default CANCEL_GRACE_MS (job.ts). */
  cancelGraceMs?: number;
}

class Worker {
  readonly reader: FrameReader;
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  dead = false;
  /** Given up by the pool (killed or retired); never handed out again. */
  gone = false;
  /** When its current request was handed to it; null while idle or starting. */
  busySince: number | null = null;
  /** Whose request it runs (see fair.ts). */
  client = "";
  /** The deadline of its current request (for Retry-After). */
  deadline = 0;
  /** An idle spare's retirement. */
  retire: ReturnType<typeof setTimeout> | undefined;
  /** Takes its request off it (set while the request may safely run again elsewhere). */
  preempt: (() => void) | null = null;

  constructor(readonly child: Deno.ChildProcess, readonly spare: boolean, maxFrame: number) {
    this.reader = new FrameReader(child.stdout, maxFrame);
    this.writer = child.stdin.getWriter();
    child.status.then(() => (this.dead = true));
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    try {
      this.child.kill("SIGKILL");
    } catch { /* already gone */ }
    this.reader.cancel();
    this.writer.abort().catch(() => {});
  }
}

interface Waiter {
  /** The peer it comes from (fair.ts). */
  client: string;
  /** Its query text ran past the time limit before: served after its client's other waiters. */
  suspect: boolean;
  /** A download: never given the last free regular worker, nor a spare. */
  download: boolean;
  give(w: Worker): void;
  fail(error: Error): void;
}

/** The key under which a query's history of running past the limit is remembered. */
function slowKey(req: WorkerRequest): string | null {
  return req.op === "query" || req.op === "explain" ? `${req.op}\n${req.sql}` : null;
}

/**
 * A fixed set of worker processes, one request each at a time, and a bounded queue before
 * them. A request's time limit starts when it arrives, queue included. A query past its limit,
 * or whose client went away, has its process killed (the only way to stop SQLite running
 * synchronously, and it frees the CPU at once) and replaced; the others keep serving.
 *
 * Runaway queries must not starve cheap ones. Killing them at the limit and on disconnect is
 * not enough: clients that keep re-sending a runaway query keep every worker busy, and a FIFO
 * queue puts the next cheap query behind them, so it waits nearly the whole limit. Between
 * clients (peer addresses) the workers are shared fairly (fair.ts): one client's runaways
 * queue behind each other, and a client holding two workers more than a waiting one hands one
 * over at once (a spare is started for the waiter, else the holder's youngest request that may
 * run again is taken off its worker). Within one client (a page and a script on loopback share
 * an address) the rules go by what requests do:
 * - a query text that ran past the limit is remembered and waits behind every other request
 *   (until it completes in time once);
 * - when every worker has been on one request for `longMs`, a spare worker is started (at most
 *   `spares` at a time; retired once a regular worker is idle again, or after SPARE_LINGER_MS
 *   unused), and only requests not remembered as runaways get one;
 * - a request that has run `longMs` on a spare while a fresh one waits and no spare is left is
 *   taken off it and queued again (a runaway seen for the first time is not remembered yet).
 * Cheap queries then get through in about `longMs` and a process start instead of the time
 * limit, at a bounded cost in processes (size + spares).
 */
export class WorkerPool {
  #observers = new Set<(event: PoolEvent) => void>();
  #idle: Worker[] = [];
  #idleSpares: Worker[] = [];
  #queue: Waiter[] = [];
  #all = new Set<Worker>();
  #jobs = new Set<(error: Error, reason: KillReason) => void>();
  #starting = 0;
  #spares = 0;
  #sparesStarting = 0;
  #closed = false;
  #exits = new Map<number, Promise<Deno.CommandStatus>>();
  #slow = new Map<string, true>();
  /** Downloads running now; at most #maxDownloads, so one worker is always left for the rest. */
  #downloads = 0;
  readonly #maxDownloads: number;
  /** When #pump runs again, if it asked to (see #pumpBy). */
  #pumpAgain: Deadline | undefined;
  /** Every request's time limit, queued or running, and #pumpAgain, behind one timer. */
  readonly #deadlines = new Deadlines(realClock, { keepArmed: true });
  readonly #spawn: SpawnWorker;
  readonly #maxQueue: number;
  readonly #maxAnswer: number;
  readonly #stallMs: number;
  readonly #maxSpares: number;
  readonly #longMs: number;

  private constructor(readonly options: PoolOptions) {
    this.#spawn = options.spawn ?? workerSpawner(options.config);
    this.#maxQueue = options.maxQueue ?? QUEUE_PER_WORKER * options.size;
    this.#maxAnswer = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    this.#stallMs = options.stallMs ?? DOWNLOAD_STALL_MS;
    this.#maxSpares = options.spares ?? Math.max(1, Math.floor(options.size / 2));
    // Short: each fresh runaway ahead of a cheap query in the queue costs it one slice on a
    // spare (1 s slices let four looping clients hold a point query past a 5 s limit).
    this.#longMs = options.longMs ?? Math.min(250, options.timeoutMs / 4);
    this.#maxDownloads = options.maxDownloads ?? Math.max(1, options.size - 1);
  }

  /** Starts the workers; rejects with the database's own message when it cannot be opened. */
  static async start(options: PoolOptions): Promise<WorkerPool> {
    const pool = new WorkerPool(options);
    try {
      const workers = await Promise.all(
        Array.from({ length: options.size }, () => pool.#startWorker(false)),
      );
      for (const w of workers) pool.#release(w);
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** Process ids of the live workers (tests watch them die). */
  get pids(): number[] {
    return [...this.#all].filter((w) => !w.dead).map((w) => w.child.pid);
  }

  /** Requests waiting for a worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Resolves when the worker process `pid` has exited and been reaped. */
  exitOf(pid: number): Promise<Deno.CommandStatus> | undefined {
    return this.#exits.get(pid);
  }

  /** Calls `fn` with every PoolEvent from now on; returns the function that stops it. */
  observe(fn: (event: PoolEvent) => void): () => void {
    this.#observers.add(fn);
    return () => this.#observers.delete(fn);
  }

  #emit(event: PoolEvent): void {
    for (const fn of this.#observers) fn(event);
  }

  async #startWorker(spare: boolean): Promise<Worker> {
    const w = new Worker(this.#spawn(), spare, this.#maxAnswer);
    this.#all.add(w);
    this.#exits.set(w.child.pid, w.child.status);
    // Only recent exits are kept: enough to watch a killed worker go.
    if (this.#exits.size > 64) this.#exits.delete(this.#exits.keys().next().value!);
    w.child.status.then(() => this.#all.delete(w));
    await w.writer.write(encodeFrame(FRAME_JSON, JSON.stringify(this.options.config)));
    const ready = await w.reader.read().catch(() => null);
    const msg = ready ? frameJson<{ ready: boolean; error?: string }>(ready) : null;
    if (!msg?.ready) {
      w.kill();
      throw new WorkerError(msg?.error ?? "the query worker could not start");
    }
    return w;
  }

  /** Gives up a worker for good; false if it already was. */
  #drop(w: Worker): boolean {
    if (w.gone) return false;
    w.gone = true;
    w.busySince = null;
    clearTimeout(w.retire);
    const i = this.#idleSpares.indexOf(w);
    if (i >= 0) this.#idleSpares.splice(i, 1);
    w.kill();
    if (w.spare) this.#spares--;
    return true;
  }

  /** Kills a worker mid-request and starts a regular one in its place (spares just go). */
  #replace(w: Worker, reason: KillReason): void {
    if (!this.#drop(w)) return;
    this.#emit({ type: "killed", pid: w.child.pid, reason });
    if (w.spare || this.#closed) return;
    this.#starting++;
    this.#startWorker(false).then((n) => {
      this.#starting--;
      this.#release(n);
    }, () => {
      // A replacement that cannot start leaves the pool one short; queued requests still end
      // at their deadlines.
      this.#starting--;
      this.#pump();
    });
  }

  /** Whether a download may take a regular worker now. */
  #downloadRoom(): boolean {
    return this.#downloads < this.#maxDownloads;
  }

  /** Workers running a request, by client. */
  #held(): Held {
    const held = new Map<string, number>();
    for (const w of this.#all) {
      if (!w.gone && w.busySince !== null) held.set(w.client, (held.get(w.client) ?? 0) + 1);
    }
    return held;
  }

  #busy(w: Worker, client: string): void {
    w.busySince = performance.now();
    w.client = client;
  }

  #release(w: Worker): void {
    w.busySince = null;
    if (w.gone || this.#closed) return;
    if (w.dead) return this.#replace(w, "failed");
    const i = this.#queue.length === 0
      ? -1
      : pickWaiter(this.#queue, this.#held(), w.spare, this.#downloadRoom());
    if (i >= 0) {
      const [waiter] = this.#queue.splice(i, 1);
      this.#busy(w, waiter.client);
      if (waiter.download) this.#downloads++;
      waiter.give(w);
    } else if (w.spare) {
      this.#idleSpares.push(w);
      w.retire = setTimeout(() => this.#drop(w), SPARE_LINGER_MS);
    } else {
      // A regular worker with nothing to do: the overload is over, spares can go.
      for (const spare of [...this.#idleSpares]) this.#drop(spare);
      this.#idle.push(w);
    }
    this.#pump();
  }

  /**
   * Hands a worker over between clients (#handOver). Else starts a spare worker when fresh
   * requests wait and every worker has been busy for long.
   * With every spare taken too, a spare's request that has run for long is preempted: its
   * worker killed and the request queued again, behind fresh ones and for a regular worker
   * only. Otherwise a runaway query seen for the first time (not yet remembered) would hold
   * the spare until its limit, and a cheap query behind it would wait as long.
   */
  #pump(): void {
    if (this.#closed) return;
    if (this.#starting > 0 || this.#sparesStarting > 0) return;
    if (this.#idle.length > 0) return;
    if (this.#handOver()) return;
    if (this.#idleSpares.length > 0) return;
    if (!this.#queue.some((q) => servable(q, true, false))) return;
    const now = performance.now();
    let youngest = -Infinity;
    for (const w of this.#all) {
      if (w.spare || w.gone) continue;
      if (w.busySince === null) return;
      youngest = Math.max(youngest, w.busySince);
    }
    if (youngest + this.#longMs > now) {
      return this.#pumpBy(youngest + this.#longMs);
    }
    if (this.#spares < this.#maxSpares) return this.#startSpare();
    let soonest = Infinity;
    for (const w of this.#all) {
      if (!w.spare || w.gone || w.busySince === null || !w.preempt) continue;
      const at = w.busySince + this.#longMs;
      if (at <= now) {
        w.preempt();
        return this.#pump();
      }
      soonest = Math.min(soonest, at);
    }
    if (Number.isFinite(soonest)) this.#pumpBy(soonest);
  }

  #startSpare(): void {
    this.#spares++;
    this.#sparesStarting++;
    this.#startWorker(true).then((w) => {
      this.#sparesStarting--;
      this.#emit({ type: "spare", pid: w.child.pid });
      this.#release(w);
    }, () => {
      this.#sparesStarting--;
      this.#spares--;
    });
  }

  /**
   * A client holding two workers more than a waiting one (fair.ts) hands one over now, not
   * after `longMs`: a spare is started for the waiter, or with every spare taken, the holder's
   * youngest request that may run again is taken off its worker and queued again (a regular
   * worker is replaced, and the pick gives it to the client holding fewer). True when it did.
   */
  #handOver(): boolean {
    if (this.#queue.length === 0) return false;
    const held = this.#held();
    const room = this.#downloadRoom();
    const forSpare = owing(this.#queue, held, true, room);
    if (forSpare !== null && this.#spares < this.#maxSpares) {
      this.#startSpare();
      return true;
    }
    const from = forSpare ?? owing(this.#queue, held, false, room);
    if (from === null) return false;
    let youngest: Worker | undefined;
    for (const w of this.#all) {
      if (w.gone || w.busySince === null || !w.preempt || w.client !== from) continue;
      // A waiter no spare may serve needs a regular worker.
      if (w.spare && forSpare === null) continue;
      if (youngest === undefined || w.busySince > youngest.busySince!) youngest = w;
    }
    if (youngest === undefined) return false;
    youngest.preempt!();
    this.#pump();
    return true;
  }

  /**
   * Runs #pump again at `at` or sooner, as a deadline beside the requests' ones. One due sooner
   * is kept rather than replaced: it runs #pump, which asks for the next. A pump runs on every
   * request, and a timer set and cleared each time cost more than the pump itself; one left
   * when there is nothing to do any more only runs a pump that finds nothing.
   */
  #pumpBy(at: number): void {
    if (this.#pumpAgain !== undefined && this.#pumpAgain.at <= at) return;
    if (this.#pumpAgain !== undefined) this.#deadlines.cancel(this.#pumpAgain);
    this.#pumpAgain = this.#deadlines.add(at, () => {
      this.#pumpAgain = undefined;
      this.#pump();
    });
  }

  /** Seconds until some running request reaches its deadline, freeing its worker. */
  #retryAfter(): number {
    const now = performance.now();
    let soonest = Infinity;
    for (const w of this.#all) if (w.busySince !== null) soonest = Math.min(soonest, w.deadline);
    return Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : 1;
  }

  #acquire(
    client: string,
    suspect: boolean,
    deadline: number,
    signal?: AbortSignal,
    again = false,
    download = false,
  ): Promise<Worker> {
    if (this.#closed) return Promise.reject(new WorkerError("the server is shutting down"));
    if (signal?.aborted) return Promise.reject(new RequestCancelledError());
    // An idle regular worker first, then an idle spare, each if it may serve the request.
    const room = this.#downloadRoom();
    for (const [idle, spare] of [[this.#idle, false], [this.#idleSpares, true]] as const) {
      const may = servable({ client, suspect, download }, spare, room);
      for (let w = may ? idle.pop() : undefined; w; w = idle.pop()) {
        clearTimeout(w.retire);
        if (w.dead) {
          this.#replace(w, "failed");
          continue;
        }
        this.#busy(w, client);
        if (download) this.#downloads++;
        return Promise.resolve(w);
      }
    }
    if (!again && this.#queue.length >= this.#maxQueue) {
      // The client with the most waiting makes room, not one that waits for less.
      const i = evictee(this.#queue, client);
      if (i < 0) return Promise.reject(new QueueFullError(this.#retryAfter()));
      this.#queue[i].fail(new QueueFullError(this.#retryAfter()));
      this.#emit({ type: "dropped", reason: "full" });
    }
    return new Promise((resolve, reject) => {
      const settle = () => {
        this.#deadlines.cancel(timer);
        signal?.removeEventListener("abort", onAbort);
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
      };
      const waiter: Waiter = {
        client,
        suspect,
        download,
        give: (w) => {
          settle();
          resolve(w);
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      };
      // Never handed to a worker once its time is up or its client is gone.
      const timer = this.#deadlines.add(deadline, () => {
        waiter.fail(new QueryTimeoutError(this.options.timeoutMs));
        this.#emit({ type: "dropped", reason: "timeout" });
      });
      const onAbort = () => {
        waiter.fail(new RequestCancelledError());
        this.#emit({ type: "dropped", reason: "cancelled" });
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      // A preempted request was admitted already: it goes back to the front.
      if (again) this.#queue.unshift(waiter);
      else this.#queue.push(waiter);
      this.#emit({ type: "queued", queued: this.#queue.length });
      this.#pump();
    });
  }

  /**
   * Runs one request. Its time limit counts from now, its time in the queue included. `signal`
   * is the client's: when it aborts, the request is dropped from the queue or its worker
   * killed. A download's limit counts the query's own time, not the time spent waiting for the
   * client to take bytes (that is bounded by the stall limit instead); a download that cannot
   * finish errors its stream, so the transfer fails rather than ending cleanly. `client` is
   * whom it comes from, for sharing the workers fairly (fair.ts).
   */
  async run(
    req: WorkerRequest,
    download = false,
    signal?: AbortSignal,
    client = "",
  ): Promise<Answer> {
    const deadline = performance.now() + this.options.timeoutMs;
    if (signal?.aborted) throw new RequestCancelledError();
    const key = slowKey(req);
    let suspect = key !== null && this.#slow.has(key);
    // Only a request that cannot have written may run a second time.
    const rerunnable = !download &&
      (!this.options.config.write || req.op !== "query" || req.readOnly === true);
    const selfStopping = isRemote(this.options.config.database);
    for (let again = false;; again = true) {
      const w = await this.#acquire(client, suspect, deadline, signal, again, download);
      w.deadline = deadline;
      // Counted from when it was handed the worker until it ends, however it ends.
      let downloading = download;
      const ended = () => {
        if (!downloading) return;
        downloading = false;
        this.#downloads--;
      };
      this.#emit({ type: "run", pid: w.child.pid, suspect, client });
      this.#pump();
      const sent: WorkerRequest = selfStopping
        ? { ...req, timeLeftMs: deadline - performance.now(), limitMs: this.options.timeoutMs }
        : req;
      try {
        return await runJob(w, sent, download, {
          selfStopping,
          limitMs: this.options.timeoutMs,
          deadline,
          maxAnswerBytes: this.#maxAnswer,
          stallMs: this.#stallMs,
          rerunnable,
          cancelGraceMs: this.options.cancelGraceMs,
          deadlines: this.#deadlines,
        }, {
          kill: (reason, ranMs) => {
            ended();
            if (reason === "timeout" || (reason === "cancelled" && ranMs >= this.#longMs)) {
              this.#remember(key, true);
            }
            this.#replace(w, reason);
          },
          release: (end) => {
            ended();
            if (end.ok) this.#remember(key, false);
            // A worker that could not end a transaction ends itself after this answer:
            // replaced now, so no request is sent to it.
            if (end.recycle) return this.#replace(w, "recycled");
            this.#release(w);
          },
          track: (stop) => {
            this.#jobs.add(stop);
            return () => this.#jobs.delete(stop);
          },
        }, signal);
      } catch (error) {
        if (!(error instanceof PreemptedError)) throw error;
        suspect = true;
      }
    }
  }

  #remember(key: string | null, slow: boolean): void {
    if (key === null) return;
    this.#slow.delete(key);
    if (!slow) return;
    this.#slow.set(key, true);
    if (this.#slow.size > SLOW_MEMORY) this.#slow.delete(this.#slow.keys().next().value!);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#all) clearTimeout(w.retire);
    for (const waiter of [...this.#queue]) {
      waiter.fail(new WorkerError("the server is shutting down"));
    }
    for (const stop of [...this.#jobs]) {
      stop(new WorkerError("the server is shutting down"), "closed");
    }
    for (const w of this.#all) w.kill();
    this.#deadlines.close();
    await Promise.all([...this.#all].map((w) => w.child.status.catch(() => {})));
  }
}
