import { isRemote, localPath } from "../sql/db_url.ts";
import type { WorkerConfig } from "./protocol.ts";

/** How to start one worker process. */
export type SpawnWorker = () => Deno.ChildProcess;

const WORKER_MODULE = new URL("./worker.ts", import.meta.url);
const REMOTE_WORKER_MODULE = new URL("./remote_worker.ts", import.meta.url);
const DENO_JSON = new URL("../../../deno.json", import.meta.url);

/**
 * V8 flags for workers, set through the environment so they reach a compiled courier too
 * (DENO_V8_FLAGS separates flags with commas).
 *
 * A bounded young generation: a download makes garbage fast (every row's values and text) though
 * little of it lives, and V8 answers a high allocation rate by growing the young generation to
 * its maximum, which grew a worker during any large export. Not below 8 MB: each young
 * collection copies the page being built, and smaller semi-spaces collect more often, which
 * slowed a 1,000-row page (figures in bench/NOTES.md, issue 24).
 *
 * A bounded old generation: a value built in JS (a huge text or BLOB turned into JSON) can no
 * longer grow a worker to gigabytes; past the limit V8 ends the process, which the pool sees
 * as a failed worker and replaces. SQLite's own memory is native and is bounded by the engine.
 */
export const WORKER_V8_FLAGS = "--max-semi-space-size=8,--max-old-space-size=512";

/**
 * A Deno permission list naming `path`, or its directory when the name holds a comma (Deno
 * splits its lists at commas and has no escape for one); null when neither can be named.
 */
function pathGrant(path: string): string | null {
  if (!path.includes(",")) return path;
  const dir = path.replace(/[\\/][^\\/]*$/, "") || ".";
  return dir.includes(",") ? null : dir;
}

/**
 * The Deno permissions a `deno run` worker needs, and no more. Measured, not guessed:
 * - for a local file: read access to that path (and write with --write), without which
 *   node:sqlite refuses to open it;
 * - for a remote database: the network, to that host alone, and the two environment switches
 *   the WebSocket library reads.
 * No run, FFI or other file permission. SQLite opens the journal, WAL and shm files beside the
 * database in native code, which Deno's permissions do not govern; no other file is open to a
 * query (no file functions in this build, no ATTACH: see sql/local.ts). What these deny is
 * every other file, network or process route through JS: a bug that let a query reach the
 * worker's JS could not read a config file.
 */
export function workerPermissions(config: WorkerConfig): string[] {
  if (isRemote(config.database)) {
    // Any port on that host: the client picks it from the URL's scheme and options.
    return [
      `--allow-net=${new URL(config.database).hostname}`,
      "--allow-env=WS_NO_UTF_8_VALIDATE,WS_NO_BUFFER_UTIL",
    ];
  }
  const grant = pathGrant(localPath(config.database));
  const read = grant === null ? "--allow-read" : `--allow-read=${grant}`;
  if (!config.write) return [read];
  return [read, grant === null ? "--allow-write" : `--allow-write=${grant}`];
}

/** Whether this process is a compiled courier (no `deno` to run a script with). */
export function isCompiled(exe = Deno.execPath()): boolean {
  return !/(^|[\\/])deno(\.exe)?$/.test(exe);
}

/** The arguments that start a worker: `module` is replaceable so tests can probe them. */
export function workerArgs(
  config: WorkerConfig,
  module: URL = isRemote(config.database) ? REMOTE_WORKER_MODULE : WORKER_MODULE,
): string[] {
  if (isCompiled()) {
    // A compiled binary carries the permissions it was compiled with (all of them) and Deno
    // cannot narrow them for one process started from it: the worker runs with those.
    return ["browse", "--query-worker"];
  }
  return [
    "run",
    ...workerPermissions(config),
    "--quiet",
    "--no-prompt",
    "--config",
    DENO_JSON.pathname,
    module.href,
  ];
}

/** Starts workers for `config`: `deno run` in a checkout, `courier browse --query-worker` compiled. */
export function workerSpawner(config: WorkerConfig, module?: URL): SpawnWorker {
  const args = workerArgs(config, module);
  return () =>
    new Deno.Command(Deno.execPath(), {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      env: { NO_COLOR: "1", DENO_V8_FLAGS: WORKER_V8_FLAGS },
    }).spawn();
}
