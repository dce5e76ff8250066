/**
 * Turns a ProxySpec into a Deno.HttpClient for `fetch(url, { client })`.
 *
 * Deno's client speaks http://, https:// and socks5:// / socks5h:// proxies itself, but cannot
 * reach a SOCKS server on a unix socket. For `socks5://unix/<path>` a relay listens on a free
 * 127.0.0.1 port and copies each connection to the socket; the client talks SOCKS to the relay.
 */
import type { ProxySpec } from "./proxy.ts";

export interface ProxyClient {
  /** Pass to fetch; undefined means a direct connection. */
  client: Deno.HttpClient | undefined;
  /** Closes the client and stops the relay, if any. Safe to call more than once. */
  close(): Promise<void>;
}

/** Async so a future form may need setup I/O; today only the unix relay binds a port. */
export function openProxyClient(spec: ProxySpec | null): Promise<ProxyClient> {
  return Promise.resolve(buildClient(spec));
}

function buildClient(spec: ProxySpec | null): ProxyClient {
  if (spec === null) return { client: undefined, close: () => Promise.resolve() };
  const basicAuth = spec.username === undefined
    ? undefined
    : { username: spec.username, password: spec.password?.reveal() ?? "" };
  if (spec.kind !== "socks5-unix") {
    const client = Deno.createHttpClient({ proxy: { url: spec.url, basicAuth } });
    return { client, close: once(() => Promise.resolve(client.close())) };
  }
  const relay = startUnixRelay(spec.path);
  const client = Deno.createHttpClient({
    proxy: { url: `socks5h://127.0.0.1:${relay.port}`, basicAuth },
  });
  return {
    client,
    close: once(async () => {
      client.close();
      await relay.stop();
    }),
  };
}

interface Relay {
  port: number;
  stop(): Promise<void>;
}

/** A TCP listener on 127.0.0.1 that pipes every connection to the unix socket at `path`. */
function startUnixRelay(path: string): Relay {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const piping = new Set<Promise<void>>();

  const acceptLoop = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return; // listener closed by stop()
      }
      const done = pipeToUnix(conn, path, open);
      piping.add(done);
      void done.finally(() => piping.delete(done));
    }
  })();

  return {
    port: (listener.addr as Deno.NetAddr).port,
    async stop() {
      listener.close();
      for (const conn of open) closeQuietly(conn);
      await acceptLoop;
      await Promise.allSettled([...piping]);
    },
  };
}

/**
 * Copies bytes both ways between `conn` and a fresh connection to the socket. Never rejects:
 * a failure (socket missing, peer reset) just closes both ends, which the client reports as a
 * failed request.
 */
async function pipeToUnix(conn: Deno.Conn, path: string, open: Set<Deno.Conn>): Promise<void> {
  open.add(conn);
  let upstream: Deno.Conn | undefined;
  try {
    upstream = await Deno.connect({ transport: "unix", path });
    open.add(upstream);
    await Promise.allSettled([
      conn.readable.pipeTo(upstream.writable),
      upstream.readable.pipeTo(conn.writable),
    ]);
  } catch {
    // the socket is absent or refused; closing `conn` tells the client
  } finally {
    open.delete(conn);
    closeQuietly(conn);
    if (upstream) {
      open.delete(upstream);
      closeQuietly(upstream);
    }
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed, e.g. by pipeTo finishing
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= fn());
}
