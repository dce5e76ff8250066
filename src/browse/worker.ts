import { type Db, DbError, isRemote, localPath, openLocal, openRemote } from "./db.ts";
import { Executor } from "./executor.ts";
import {
  encodeFrame,
  FRAME_BODY,
  FRAME_END,
  FRAME_JSON,
  frameJson,
  FrameReader,
  type WorkerConfig,
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
  let db: Db;
  try {
    db = isRemote(config.database)
      ? openRemote(config.database, config.authToken, config.write)
      : openLocal(localPath(config.database), config.write);
  } catch (error) {
    const message = error instanceof DbError ? error.message : "cannot open the database";
    writeAll(encodeFrame(FRAME_JSON, JSON.stringify({ ready: false, error: message })));
    return;
  }
  writeAll(encodeFrame(FRAME_JSON, JSON.stringify({ ready: true })));
  const executor = new Executor(db, config.write, config.label);
  const sink = {
    head: (h: unknown) => writeAll(encodeFrame(FRAME_JSON, JSON.stringify(h))),
    chunk: (text: string) => writeText(text),
    end: (e: unknown) => writeAll(encodeFrame(FRAME_END, JSON.stringify(e))),
  };
  for (;;) {
    const frame = await reader.read();
    if (!frame) break;
    await executor.handle(frameJson<WorkerRequest>(frame), sink);
  }
  db.close();
}

if (import.meta.main) {
  await runWorker();
}
