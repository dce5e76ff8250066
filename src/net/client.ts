/**
 * Turns a ProxySpec into a Deno.HttpClient for `fetch(url, { client })`.
 *
 * Deno's client speaks http://, https:// and socks5:// / socks5h:// proxies itself, but cannot
 * reach a SOCKS server on a unix socket. For `socks5://unix/<path>` a relay listens on a free
 * 127.0.0.1 port and copies each connection to the socket; the client talks SOCKS to the relay.
 */
import type { ProxySpec } from "./proxy.ts";
import { startUnixRelay } from "./unix_relay.ts";

export interface ProxyClient {
  /** Pass to fetch; undefined means a direct connection. */
  client: Deno.HttpClient | undefined;
  /** Closes the client and stops the relay, if any. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * The proxy each client goes through, so that whoever holds only the client (a feed fetch) can
 * name the proxy when a request through it fails.
 */
const proxies = new WeakMap<Deno.HttpClient, ProxySpec>();

/** The proxy a client from openProxyClient goes through; null for a direct one or unknown. */
export function proxyOf(client: Deno.HttpClient | undefined): ProxySpec | null {
  return (client && proxies.get(client)) ?? null;
}

/** `caCerts`: extra PEM certificates to trust, for the https:// proxy itself and for origins. */
export function openProxyClient(
  spec: ProxySpec | null,
  { caCerts }: { caCerts?: string[] } = {},
): ProxyClient {
  if (spec === null) {
    if (caCerts === undefined) return { client: undefined, close: () => Promise.resolve() };
    const direct = Deno.createHttpClient({ caCerts });
    return { client: direct, close: once(() => Promise.resolve(direct.close())) };
  }
  const basicAuth = spec.username === undefined
    ? undefined
    : { username: spec.username, password: spec.password?.reveal() ?? "" };
  if (spec.kind !== "socks5-unix") {
    const client = Deno.createHttpClient({ caCerts, proxy: { url: spec.url, basicAuth } });
    proxies.set(client, spec);
    return { client, close: once(() => Promise.resolve(client.close())) };
  }
  const relay = startUnixRelay(spec.path);
  const client = Deno.createHttpClient({
    caCerts,
    proxy: { url: `socks5h://127.0.0.1:${relay.port}`, basicAuth },
  });
  proxies.set(client, spec);
  return {
    client,
    close: once(async () => {
      client.close();
      await relay.stop();
    }),
  };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= fn());
}
