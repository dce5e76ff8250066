import { createApp } from "../../src/browse/http/app.ts";
import { type PoolEvent, type PoolOptions, WorkerPool } from "../../src/browse/pool/pool.ts";

export interface PoolServer {
  port: number;
  url: string;
  pool: WorkerPool;
  close(): Promise<void>;
}

/**
 * The browse app on the real Deno.serve with a pool built from `options` (the limits the
 * command line does not expose: queue size, stall bound, spares). Two workers by default.
 */
export async function startPoolServer(
  database: string,
  options: Partial<PoolOptions> = {},
): Promise<PoolServer> {
  const pool = await WorkerPool.start({
    size: 2,
    timeoutMs: 5000,
    config: { database, write: false, label: "fixture.db" },
    ...options,
  });
  const holder: { app?: ReturnType<typeof createApp> } = {};
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req, info) => holder.app!.fetch(req, info),
  );
  const port = server.addr.port;
  holder.app = createApp({ pool, host: "127.0.0.1", port, cors: [], maxRows: 100_000 });
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    pool,
    async close() {
      await pool.close();
      await server.shutdown();
    },
  };
}

/** Resolves with the next event of `type` that `accept` takes. */
export function nextEvent<T extends PoolEvent["type"]>(
  pool: WorkerPool,
  type: T,
  accept: (event: Extract<PoolEvent, { type: T }>) => boolean = () => true,
): Promise<Extract<PoolEvent, { type: T }>> {
  return new Promise((resolve) => {
    const stop = pool.observe((event) => {
      if (event.type !== type) return;
      const e = event as Extract<PoolEvent, { type: T }>;
      if (!accept(e)) return;
      stop();
      resolve(e);
    });
  });
}

/** Resolves after `count` events of `type`, with them. */
export function events<T extends PoolEvent["type"]>(
  pool: WorkerPool,
  type: T,
  count: number,
): Promise<Extract<PoolEvent, { type: T }>[]> {
  return new Promise((resolve) => {
    const seen: Extract<PoolEvent, { type: T }>[] = [];
    const stop = pool.observe((event) => {
      if (event.type !== type) return;
      seen.push(event as Extract<PoolEvent, { type: T }>);
      if (seen.length < count) return;
      stop();
      resolve(seen);
    });
  });
}

/** POSTs a JSON query; the status and the parsed body. */
export async function postJson(
  server: { url: string },
  query: string,
  signal?: AbortSignal,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(new URL("/api/query", server.url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query }),
    signal,
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}
