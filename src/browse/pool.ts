import {
  encodeFrame,
  type Frame,
  FRAME_BODY,
  FRAME_END,
  FRAME_JSON,
  frameJson,
  FrameReader,
  type WorkerConfig,
  type WorkerEnd,
  type WorkerHead,
  type WorkerRequest,
} from "./protocol.ts";

/** The query ran past the time limit; its worker was killed. */
export class QueryTimeoutError extends Error {
  constructor(readonly limitMs: number) {
    super(`the query ran longer than the time limit (${limitMs} ms) and was stopped`);
    this.name = "QueryTimeoutError";
  }
}

/** A worker died or could not start; the message is safe to show. */
export class WorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkerError";
  }
}

/** An answer: the head, and either the whole body or a stream of it (downloads). */
export interface Answer {
  head: WorkerHead;
  body: Uint8Array | ReadableStream<Uint8Array>;
  /** Resolves when the worker finished the answer; null when it was cut short. */
  done: Promise<WorkerEnd | null>;
}

/** How to start one worker process. */
export type SpawnWorker = () => Deno.ChildProcess;

const WORKER_MODULE = new URL("./worker.ts", import.meta.url);
const DENO_JSON = new URL("../../deno.json", import.meta.url);

/**
 * A small young generation for workers. A download makes garbage fast (every row's values and
 * text) though little of it lives, and V8 answers a high allocation rate by growing the young
 * generation to its maximum: a worker's RSS rose by about 75 MB during any large export. With
 * 2 MB semi-spaces it rises by 10-45 MB, whatever the size of the output, at no measured cost
 * in speed. Set through the environment, so it reaches a compiled courier too.
 */
const WORKER_V8_FLAGS = "--max-semi-space-size=2";

/**
 * Starts a worker: with `deno run` in a checkout; as `courier browse --query-worker` when
 * courier is a compiled binary (there is no separate script to run then).
 */
export const spawnWorker: SpawnWorker = () => {
  const exe = Deno.execPath();
  const compiled = !/(^|[\\/])deno(\.exe)?$/.test(exe);
  const args = compiled
    ? ["browse", "--query-worker"]
    : ["run", "-A", "--quiet", "--no-prompt", "--config", DENO_JSON.pathname, WORKER_MODULE.href];
  return new Deno.Command(exe, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1", DENO_V8_FLAGS: WORKER_V8_FLAGS },
  }).spawn();
};

class Worker {
  readonly reader: FrameReader;
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  dead = false;

  constructor(readonly child: Deno.ChildProcess) {
    this.reader = new FrameReader(child.stdout);
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

export interface PoolOptions {
  size: number;
  timeoutMs: number;
  config: WorkerConfig;
  spawn?: SpawnWorker;
}

/**
 * A fixed set of worker processes, one request each at a time. A query past the time limit
 * has its process killed (which frees the CPU at once) and replaced; the others keep serving.
 */
export class WorkerPool {
  #idle: Worker[] = [];
  #waiting: ((w: Worker) => void)[] = [];
  #all = new Set<Worker>();
  #closed = false;
  #exits = new Map<number, Promise<Deno.CommandStatus>>();
  readonly #spawn: SpawnWorker;

  private constructor(readonly options: PoolOptions) {
    this.#spawn = options.spawn ?? spawnWorker;
  }

  /** Starts the workers; rejects with the database's own message when it cannot be opened. */
  static async start(options: PoolOptions): Promise<WorkerPool> {
    const pool = new WorkerPool(options);
    try {
      const workers = await Promise.all(
        Array.from({ length: options.size }, () => pool.#startWorker()),
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

  /** Resolves when the worker process `pid` has exited and been reaped. */
  exitOf(pid: number): Promise<Deno.CommandStatus> | undefined {
    return this.#exits.get(pid);
  }

  async #startWorker(): Promise<Worker> {
    const w = new Worker(this.#spawn());
    this.#all.add(w);
    this.#exits.set(w.child.pid, w.child.status);
    // Only recent exits are kept: enough to watch a killed worker go.
    if (this.#exits.size > 64) this.#exits.delete(this.#exits.keys().next().value!);
    w.child.status.then(() => this.#all.delete(w));
    await w.writer.write(encodeFrame(FRAME_JSON, JSON.stringify(this.options.config)));
    const ready = await w.reader.read();
    const msg = ready ? frameJson<{ ready: boolean; error?: string }>(ready) : null;
    if (!msg?.ready) {
      w.kill();
      throw new WorkerError(msg?.error ?? "the query worker could not start");
    }
    return w;
  }

  #release(w: Worker): void {
    if (w.dead || this.#closed) return;
    const next = this.#waiting.shift();
    if (next) next(w);
    else this.#idle.push(w);
  }

  #replace(w: Worker): void {
    w.kill();
    if (this.#closed) return;
    this.#startWorker().then((n) => this.#release(n), () => {
      // A replacement that cannot start: the next one is tried when the next query ends.
    });
  }

  #acquire(): Promise<Worker> {
    if (this.#closed) return Promise.reject(new WorkerError("the server is shutting down"));
    const w = this.#idle.pop();
    if (w) return Promise.resolve(w);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Runs one request within the time limit. */
  async run(req: WorkerRequest, download = false): Promise<Answer> {
    const w = await this.#acquire();
    const limit = this.options.timeoutMs;
    let timedOut = false;
    // The time limit kills the worker, which ends any pending read or write on its pipes; the
    // flag turns that end into a timeout. Not Promise.race against a timeout promise: every race
    // leaves a reaction on that promise which keeps its result alive until the promise settles,
    // so a download retained every frame it passed along (+187 MB for a 175 MB CSV).
    const timer = setTimeout(() => {
      timedOut = true;
      this.#replace(w);
    }, limit);
    const fail = (): never => {
      clearTimeout(timer);
      if (!timedOut) this.#replace(w);
      throw timedOut ? new QueryTimeoutError(limit) : new WorkerError("the query worker failed");
    };
    const next = async (): Promise<Frame> => {
      const frame = await w.reader.read();
      if (timedOut) throw new QueryTimeoutError(limit);
      if (!frame) throw new WorkerError("the query worker exited");
      return frame;
    };
    let head: WorkerHead;
    try {
      await w.writer.write(encodeFrame(FRAME_JSON, JSON.stringify(req)));
      head = frameJson<WorkerHead>(await next());
    } catch {
      return fail();
    }
    const finish = (frame: Frame): WorkerEnd => {
      clearTimeout(timer);
      this.#release(w);
      return frameJson<WorkerEnd>(frame);
    };
    if (!download || head.status !== 200) {
      const parts: Uint8Array[] = [];
      let size = 0;
      try {
        for (;;) {
          const frame = await next();
          if (frame.kind === FRAME_BODY) {
            parts.push(frame.payload);
            size += frame.payload.length;
          } else if (frame.kind === FRAME_END) {
            const end = finish(frame);
            const body = new Uint8Array(size);
            let o = 0;
            for (const p of parts) {
              body.set(p, o);
              o += p.length;
            }
            return { head, body, done: Promise.resolve(end) };
          }
        }
      } catch {
        return fail();
      }
    }
    let settle: (end: WorkerEnd | null) => void = () => {};
    const done = new Promise<WorkerEnd | null>((r) => (settle = r));
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const frame = await next();
          if (frame.kind === FRAME_BODY) controller.enqueue(frame.payload);
          else if (frame.kind === FRAME_END) {
            settle(finish(frame));
            controller.close();
          }
        } catch (error) {
          settle(null);
          clearTimeout(timer);
          if (!timedOut) this.#replace(w);
          controller.error(error);
        }
      },
      cancel: () => {
        // The client went away mid-download: the query cannot be stopped any other way.
        clearTimeout(timer);
        settle(null);
        this.#replace(w);
      },
    }, { highWaterMark: 0 });
    return { head, body, done };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#all) w.kill();
    await Promise.all([...this.#all].map((w) => w.child.status.catch(() => {})));
  }
}
