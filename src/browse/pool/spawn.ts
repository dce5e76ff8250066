import { isRemote, localPath } from "../sql/db_url.ts";
import type { WorkerConfig } from "./protocol.ts";

/** How to start one worker process. */
export type SpawnWorker = () => Deno.ChildProcess;

const WORKER_MODULE = new URL("./worker.ts", import.meta.url);
const DENO_JSON = new URL("../../../deno.json", import.meta.url);

/**
 * V8 flags for workers, set through the environment so they reach a compiled courier too.
 *
 * A small young generation: a download makes garbage fast (every row's values and text) though
 * little of it lives, and V8 answers a high allocation rate by growing the young generation to
 * its maximum: a worker's RSS rose by about 75 MB during any large export. With 2 MB
 * semi-spaces it rises by 10-45 MB, whatever the size of the output, at no measured cost in
 * speed. (DENO_V8_FLAGS separates flags with commas.)
 *
 * A bounded old generation: a value built in JS (a huge text or BLOB turned into JSON) can no
 * longer grow a worker to gigabytes; past the limit V8 ends the process, which the pool sees
 * as a failed worker and replaces. SQLite's own memory is native and is bounded by the engine.
 */
export const WORKER_V8_FLAGS = "--max-semi-space-size=2,--max-old-space-size=512";

/**
 * The directory the libsql native addon is loaded from: the npm root that holds both `libsql`
 * and its platform package (`@libsql/linux-x64-gnu`...), so `--allow-ffi` can name it rather
 * than every path. Null when it cannot be found (then FFI is allowed without a path).
 */
function npmRoot(): string | null {
  let index: string;
  try {
    const url = new URL(import.meta.resolve("libsql"));
    if (url.protocol !== "file:") return null;
    index = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  // A node_modules layout: everything lives under the first node_modules directory.
  const nm = index.indexOf("/node_modules/");
  if (nm >= 0) return index.slice(0, nm + "/node_modules".length);
  // Deno's global cache: <registry>/libsql/<version>/index.js beside <registry>/@libsql/...
  const parts = index.split("/");
  return parts.length > 4 ? parts.slice(0, -3).join("/") : null;
}

/**
 * The Deno permissions a `deno run` worker needs, and no more. Measured, not guessed:
 * - FFI, to load the libsql native addon (scoped to the npm directory that holds it);
 * - env `LIBSQL_JS_DEV`, read by libsql's loader;
 * - sys `cpus,networkInterfaces,hostname`: on Linux the loader calls `process.report.getReport()`
 *   to tell glibc from musl, and Deno guards those three parts of the report;
 * - for a remote database only: the network, to that host alone, and the two
 *   environment switches the WebSocket library reads;
 * - for a read-only local file only: read access to that one path, without which node:sqlite
 *   (src/browse/db_node.ts) refuses to open it. The worker's queries read that file anyway.
 * No write or run permission at all, and no other read. SQLite opens and writes the database,
 * its journal, WAL and shm files in native code, which Deno's permissions do not govern (so
 * they neither need nor can restrict those). What these deny is every other file, network or
 * process route through JS: a bug that let a query reach the worker's JS could not read a
 * config file. (FFI stays: a read-only worker still loads libsql for what node:sqlite cannot
 * answer.)
 */
export function workerPermissions(config: WorkerConfig, ffiRoot = npmRoot()): string[] {
  const env = ["LIBSQL_JS_DEV"];
  const perms = [
    ffiRoot ? `--allow-ffi=${ffiRoot}` : "--allow-ffi",
    "--allow-sys=cpus,networkInterfaces,hostname",
  ];
  if (!isRemote(config.database) && !config.write && !localPath(config.database).includes(",")) {
    // A comma would split Deno's list: such a path is left to libsql, which needs no read.
    perms.push(`--allow-read=${localPath(config.database)}`);
  }
  if (isRemote(config.database)) {
    // Any port on that host: the client picks it from the URL's scheme and options.
    perms.push(`--allow-net=${new URL(config.database).hostname}`);
    env.push("WS_NO_UTF_8_VALIDATE", "WS_NO_BUFFER_UTIL");
  }
  perms.push(`--allow-env=${env.join(",")}`);
  return perms;
}

/** Whether this process is a compiled courier (no `deno` to run a script with). */
export function isCompiled(exe = Deno.execPath()): boolean {
  return !/(^|[\\/])deno(\.exe)?$/.test(exe);
}

/** The arguments that start a worker: `module` is replaceable so tests can probe them. */
export function workerArgs(config: WorkerConfig, module: URL = WORKER_MODULE): string[] {
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
