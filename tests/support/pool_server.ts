import { createApp } from "../../src/browse/app.ts";
import { type PoolOptions, WorkerPool } from "../../src/browse/pool.ts";

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

/** Resolves with the detail of the next `type` event of the pool that `accept` takes. */
export function nextEvent(
  pool: WorkerPool,
  type: string,
  accept: (detail: Record<string, unknown>) => boolean = () => true,
): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const listener = (event: Event) => {
      const detail = (event as CustomEvent<Record<string, unknown>>).detail;
      if (!accept(detail)) return;
      pool.events.removeEventListener(type, listener);
      resolve(detail);
    };
    pool.events.addEventListener(type, listener);
  });
}

/** Resolves after `count` events of `type`, with their details. */
export function events(
  pool: WorkerPool,
  type: string,
  count: number,
): Promise<Record<string, unknown>[]> {
  return new Promise((resolve) => {
    const seen: Record<string, unknown>[] = [];
    const listener = (event: Event) => {
      seen.push((event as CustomEvent<Record<string, unknown>>).detail);
      if (seen.length < count) return;
      pool.events.removeEventListener(type, listener);
      resolve(seen);
    };
    pool.events.addEventListener(type, listener);
  });
}
