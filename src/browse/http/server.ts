import { createApp } from "./app.ts";
import { History } from "./history.ts";
import { WorkerPool } from "../pool/pool.ts";
import { accessProblem } from "./security.ts";

/** A start-up refusal (unsafe binding, unopenable database): one line, no stack. */
export class BrowseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BrowseError";
  }
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
  let resolvePort: (port: number) => void = () => {};
  const portKnown = new Promise<number>((r) => (resolvePort = r));
  const ready: { app?: ReturnType<typeof createApp> } = {};
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: options.host,
      port: options.port,
      onListen: ({ port }) => resolvePort(port),
    }, (req, info) => ready.app ? ready.app.fetch(req, info) : new Response(null, { status: 503 }));
  } catch (error) {
    await pool.close();
    throw new BrowseError(
      `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
    );
  }
  const port = await portKnown;
  ready.app = createApp({
    pool,
    host: options.host,
    port,
    token: options.token,
    cors: options.cors,
    maxRows: options.maxRows,
    history: new History(500),
  });
  const shown = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    pool,
    finished: server.finished,
    async close() {
      await server.shutdown();
      await pool.close();
    },
  };
}
