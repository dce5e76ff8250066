import { DbError } from "../sql/db.ts";
import { openLocal } from "../sql/local.ts";
import { isRemote, localPath } from "../sql/db_url.ts";
import { Executor, scrub } from "../sql/executor.ts";
import {
  encodeFrame,
  FRAME_BODY,
  FRAME_END,
  FRAME_JSON,
  frameJson,
  FrameReader,
  SyncFrameReader,
  type WorkerConfig,
  type WorkerEnd,
  type WorkerHead,
  type WorkerRequest,
} from "./protocol.ts";

const encoder = new TextEncoder();

/** Blocking write: a full pipe stalls the worker, which is the back-pressure downloads need. */
function writeAll(bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
}

/** Pending output is written once it reaches this size, so a download keeps its back-pressure. */
const FLUSH_BYTES = 64 * 1024;
/** A buffer grown past this by a large answer is given back once that answer is written. */
const KEEP_BYTES = 1024 * 1024;

/**
 * Frames waiting to be written, in one reused buffer: an answer's head, body and end go out in
 * one write (one wake-up of the server), and encoding into fresh arrays per chunk left tens of
 * MB of garbage per large download before V8 collected it.
 */
class Output {
  #buf = new Uint8Array(256 * 1024);
  #len = 0;

  #room(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = new Uint8Array(Math.max(this.#len + n, this.#buf.length * 2));
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  /** Appends a frame; writes what is pending once that reaches FLUSH_BYTES. */
  frame(kind: number, body: string | Uint8Array): void {
    let written = body.length;
    if (typeof body === "string") {
      this.#room(5 + body.length * 3);
      written = encoder.encodeInto(body, this.#buf.subarray(this.#len + 5)).written;
    } else {
      this.#room(5 + body.length);
      this.#buf.set(body, this.#len + 5);
    }
    new DataView(this.#buf.buffer).setUint32(this.#len, written + 1);
    this.#buf[this.#len + 4] = kind;
    this.#len += 5 + written;
    if (this.#len >= FLUSH_BYTES) this.flush();
  }

  flush(): void {
    writeAll(this.#buf.subarray(0, this.#len));
    this.#len = 0;
  }

  /** Between answers: a buffer grown by a large one is given back (kept during it). */
  trim(): void {
    if (this.#buf.length > KEEP_BYTES) this.#buf = new Uint8Array(256 * 1024);
  }
}

/** The ways the database's path may be spelled in an SQLite message. */
function serverPaths(path: string): string[] {
  const out = [path];
  try {
    out.push(Deno.realPathSync(path));
  } catch { /* not there (yet) */ }
  try {
    out.push(Deno.realPathSync(".") + "/" + path);
  } catch { /* no cwd */ }
  // Longest first, so a full path is replaced before a part of it.
  return out.sort((a, b) => b.length - a.length);
}

/**
 * The query worker process: reads its config, then one request at a time from stdin, and
 * answers each on stdout. The server kills the process when a query runs past the time limit;
 * that is the only way to stop SQLite running synchronously in native code.
 */
export async function runWorker(): Promise<void> {
  const input = new SyncFrameReader(Deno.stdin);
  const first = input.read();
  if (!first) return;
  const config = frameJson<WorkerConfig>(first);
  const refuse = (error: unknown) => {
    const message = error instanceof DbError
      ? scrub(error.message, serverPaths(localPath(config.database)), config.label)
      : "cannot open the database";
    writeAll(encodeFrame(FRAME_JSON, JSON.stringify({ ready: false, error: message })));
  };
  const remote = isRemote(config.database);
  const path = localPath(config.database);
  let executor: Executor;
  try {
    // The client library is loaded only for a remote database.
    const db = remote
      ? (await import("../sql/remote.ts")).openRemote(
        config.database,
        config.authToken,
        config.write,
      )
      : openLocal(path, config.write);
    executor = new Executor(db, config.write, config.label, remote ? [] : serverPaths(path));
  } catch (error) {
    return refuse(error);
  }
  // A local worker blocks on its input between requests: it has nothing else to do. A remote
  // one reads it as a stream, so its client's connection is served meanwhile (the server sends
  // nothing after the config until the worker says it is ready, so no bytes are left behind).
  const reader = remote && input.buffered === 0 ? new FrameReader(Deno.stdin.readable) : input;
  writeAll(encodeFrame(FRAME_JSON, JSON.stringify({ ready: true })));
  // The end frame waits until the connection has been checked, so a spoiled worker can say so.
  let end: WorkerEnd | undefined;
  const out = new Output();
  const sink = {
    head: (h: WorkerHead) => {
      out.frame(FRAME_JSON, JSON.stringify(h));
      // A download's client waits for its head while the rows are read; an answer sent whole
      // goes out with its body.
      if (h.filename !== undefined) out.flush();
    },
    chunk: (body: string | Uint8Array) => out.frame(FRAME_BODY, body),
    end: (e: WorkerEnd) => (end = e),
  };
  for (;;) {
    const frame = await reader.read();
    if (!frame) break;
    end = undefined;
    await executor.handle(frameJson<WorkerRequest>(frame), sink);
    const last: WorkerEnd = {
      ...(end ?? { ok: false, rows: 0, durationMs: 0 }),
      ...(executor.spoiled ? { recycle: true } : {}),
    };
    out.frame(FRAME_END, JSON.stringify(last));
    out.flush();
    out.trim();
    if (executor.spoiled) break;
  }
  executor.close();
}

if (import.meta.main) {
  await runWorker();
}
