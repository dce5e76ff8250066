import { createApp } from "./app.ts";
import { Front } from "./front.ts";
import { WorkerPool } from "../pool/pool.ts";
import { accessProblem } from "./security.ts";

/** A start-up refusal (unsafe binding, unopenable database): one line, no stack. */
export class BrowseError extends Error {
  override name = "BrowseError";
}

export interface BrowseOptions {
  /** A path, `file:` URL or remote libSQL URL. */
  database: string;
  /** How /info names the database. */
  label: string;
  authToken?: string;
  write: boolean;
  host: string;
  port: number;
  token?: string;
  timeoutMs: number;
  maxRows: number;
  cors: string[];
  /** Worker processes; default: one per CPU, at least 2. */
  workers?: number;
}

export interface RunningBrowser {
  url: string;
  port: number;
  pool: WorkerPool;
  front: Front;
  close(): Promise<void>;
  finished: Promise<void>;
}

/** Checks the options, starts the workers and serves; refuses unsafe bindings. */
export async function startBrowser(options: BrowseOptions): Promise<RunningBrowser> {
  const problem = accessProblem(options);
  if (problem !== null) throw new BrowseError(problem);
  const size = options.workers ?? Math.max(2, navigator.hardwareConcurrency ?? 2);
  let pool: WorkerPool;
  try {
    pool = await WorkerPool.start({
      size,
      timeoutMs: options.timeoutMs,
      config: {
        database: options.database,
        authToken: options.authToken,
        write: options.write,
        label: options.label,
      },
    });
  } catch (error) {
    throw new BrowseError(`cannot open database ${options.label}: ${(error as Error).message}`);
  }
  let front: Front;
  try {
    front = new Front({ hostname: options.host, port: options.port });
  } catch (error) {
    await pool.close();
    throw new BrowseError(
      `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
    );
  }
  const port = front.port;
  const app = createApp({
    pool,
    host: options.host,
    port,
    token: options.token,
    cors: options.cors,
    maxRows: options.maxRows,
    label: options.label,
    write: options.write,
    clientOf: (request) => front.tags.clientOf(request.headers),
  });
  // Deno.serve listens only on a Unix socket in a directory of its own (mode 0700): the
  // front relays every connection to it once its headers are in (front.ts). Windows has no
  // Unix sockets for Deno.serve: there it listens on a loopback port, which local users could
  // reach past the front's connection bounds (not past the guards, which are the app's).
  const dir = await Deno.makeTempDir({ prefix: "courier-browse-" });
  const socket = `${dir}/http.sock`;
  const unix = Deno.build.os !== "windows";
  const server = unix
    ? Deno.serve({ path: socket, onListen: () => {} }, app.fetch)
    : Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  front.setBackend(server.addr);
  const shown = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    pool,
    front,
    finished: server.finished,
    async close() {
      await front.close();
      await server.shutdown();
      await pool.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
