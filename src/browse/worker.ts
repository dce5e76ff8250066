import { type Db, DbError, isRemote, localPath, openLocal, openRemote } from "./db.ts";
import { Executor, scrub } from "./executor.ts";
import {
  encodeFrame,
  FRAME_BODY,
  FRAME_END,
  FRAME_JSON,
  frameJson,
  FrameReader,
  type WorkerConfig,
  type WorkerEnd,
  type WorkerRequest,
} from "./protocol.ts";

const encoder = new TextEncoder();

/** Blocking write: a full pipe stalls the worker, which is the back-pressure downloads need. */
function writeAll(bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
}

/**
 * One reused buffer for body frames: encoding every chunk into fresh arrays left tens of MB of
 * garbage per large download before V8 collected it.
 */
let out = new Uint8Array(256 * 1024);

function writeText(text: string): void {
  const need = 5 + text.length * 3;
  if (need > out.length) out = new Uint8Array(need);
  const { written } = encoder.encodeInto(text, out.subarray(5));
  new DataView(out.buffer).setUint32(0, written + 1);
  out[4] = FRAME_BODY;
  writeAll(out.subarray(0, 5 + written));
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
  const reader = new FrameReader(Deno.stdin.readable);
  const first = await reader.read();
  if (!first) return;
  const config = frameJson<WorkerConfig>(first);
  const refuse = (error: unknown) => {
    const message = error instanceof DbError
      ? scrub(error.message, serverPaths(localPath(config.database)), config.label)
      : "cannot open the database";
    writeAll(encodeFrame(FRAME_JSON, JSON.stringify({ ready: false, error: message })));
  };
  let db: Db;
  try {
    db = isRemote(config.database)
      ? openRemote(config.database, config.authToken, config.write)
      : openLocal(localPath(config.database), config.write);
  } catch (error) {
    return refuse(error);
  }
  const paths = isRemote(config.database) ? [] : serverPaths(localPath(config.database));
  const executor = new Executor(db, config.write, config.label, paths);
  try {
    await executor.init();
  } catch (error) {
    return refuse(error);
  }
  writeAll(encodeFrame(FRAME_JSON, JSON.stringify({ ready: true })));
  // The end frame waits until the connection has been checked, so a spoiled worker can say so.
  let end: WorkerEnd | undefined;
  const sink = {
    head: (h: unknown) => writeAll(encodeFrame(FRAME_JSON, JSON.stringify(h))),
    chunk: (text: string) => writeText(text),
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
    writeAll(encodeFrame(FRAME_END, JSON.stringify(last)));
    if (executor.spoiled) break;
  }
  db.close();
}

if (import.meta.main) {
  await runWorker();
}
