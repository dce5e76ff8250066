/**
 * `forward --metrics ADDR`: a tiny HTTP server with `GET /healthz` (alive), `GET /readyz`
 * (started and not stopping) and `GET /metrics`.
 * Plain Deno.serve rather than Hono: two fixed routes need no router, and `forward` should not
 * load the browser's web framework for them.
 */
import type { HealthSnapshot } from "./health.ts";

/** A one-line user error about `--metrics` (bad address, cannot listen). */
export class MetricsAddressError extends Error {
  override name = "MetricsAddressError";
}

export interface ListenAddress {
  /** As Deno.serve wants it: an IPv6 address without brackets. */
  hostname: string;
  port: number;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const USAGE = "expected HOST:PORT, [IPV6]:PORT or :PORT";
/** IPv4's, not `::`: a host or container without IPv6 cannot bind that at all. */
const ALL_INTERFACES = "0.0.0.0";

function isIpv6(text: string): boolean {
  if (!text.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(text)) return false;
  try {
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads `--metrics ADDR`: `127.0.0.1:9464`, `localhost:9464`, `[::1]:9464`, `0.0.0.0:9464`, or
 * a bare port (`:9464` or `9464`), which binds every IPv4 interface, as Prometheus exporters
 * do with `:PORT` (a Prometheus in another container or host must reach it). The metrics name
 * every feed: bind `127.0.0.1:PORT` to keep them on this machine.
 */
export function parseMetricsAddress(value: string): ListenAddress {
  const text = value.trim();
  const shown = JSON.stringify(value);
  let host: string;
  let portText: string;
  if (text.includes("://")) {
    throw new MetricsAddressError(`--metrics ${shown}: give HOST:PORT, not a URL`);
  }
  if (/^:?\d+$/.test(text)) {
    host = ALL_INTERFACES;
    portText = text.replace(/^:/, "");
  } else if (text.startsWith("[")) {
    const m = /^\[([^\]]*)\]:(\d*)$/.exec(text);
    if (!m) throw new MetricsAddressError(`--metrics ${shown}: ${USAGE}`);
    if (!isIpv6(m[1])) {
      throw new MetricsAddressError(`--metrics ${shown}: "${m[1]}" is not an IPv6 address`);
    }
    host = m[1];
    portText = m[2];
  } else {
    const colon = text.lastIndexOf(":");
    if (colon === -1) throw new MetricsAddressError(`--metrics ${shown}: ${USAGE}`);
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(":")) {
      throw new MetricsAddressError(
        `--metrics ${shown}: put an IPv6 address in brackets, as in [::1]:9464`,
      );
    }
    if (host === "") host = ALL_INTERFACES;
    else if (!IPV4.test(host) && (/^[\d.]+$/.test(host) || !DNS_NAME.test(host))) {
      throw new MetricsAddressError(`--metrics ${shown}: "${host}" is not a host name or address`);
    }
  }
  if (!/^\d+$/.test(portText)) {
    throw new MetricsAddressError(`--metrics ${shown}: missing port (${USAGE})`);
  }
  const port = Number(portText);
  if (port < 1 || port > 65535) {
    throw new MetricsAddressError(`--metrics ${shown}: port must be from 1 to 65535`);
  }
  return { hostname: host, port };
}

export interface HealthServerOptions {
  hostname: string;
  /** 0 picks a free port (tests). */
  port: number;
  metrics: { render(): string };
  health: () => HealthSnapshot;
  /**
   * `/readyz`: whether to send work here: false until the loop has started and again once it
   * is stopping. Default: ready while it serves.
   */
  ready?: () => boolean;
  /** For uptime; default: the runtime's time origin. */
  startedAt?: Date;
  now?: () => Date;
}

export interface HealthServer {
  /** e.g. http://127.0.0.1:9464 */
  url: string;
  port: number;
  shutdown(): Promise<void>;
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
const NO_STORE = { "cache-control": "no-store" };

function healthResponse(options: HealthServerOptions): Response {
  const now = options.now?.() ?? new Date();
  const started = options.startedAt?.getTime() ?? Math.round(performance.timeOrigin);
  const uptime = Math.max(0, Math.floor((now.getTime() - started) / 1000));
  let snapshot: HealthSnapshot;
  try {
    snapshot = options.health();
  } catch {
    // The loop could not even say how it is: that is not healthy.
    return Response.json({ status: "error", feeds: 0, last_tick: null, uptime_s: uptime }, {
      status: 503,
      headers: NO_STORE,
    });
  }
  const body = {
    status: snapshot.ok ? "ok" : "stalled",
    feeds: snapshot.feeds,
    last_tick: snapshot.lastTick?.toISOString() ?? null,
    uptime_s: uptime,
  };
  return Response.json(body, { status: snapshot.ok ? 200 : 503, headers: NO_STORE });
}

const ROUTES = new Set(["/healthz", "/readyz", "/metrics"]);

function readyResponse(options: HealthServerOptions): Response {
  const ready = options.ready?.() ?? true;
  return Response.json({ status: ready ? "ready" : "not ready" }, {
    status: ready ? 200 : 503,
    headers: NO_STORE,
  });
}

function handle(request: Request, options: HealthServerOptions): Response {
  const { pathname } = new URL(request.url);
  if (!ROUTES.has(pathname)) return new Response("not found\n", { status: 404 });
  // HEAD too: HTTP requires it wherever GET works; Deno drops the body.
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("method not allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
  }
  if (pathname === "/healthz") return healthResponse(options);
  if (pathname === "/readyz") return readyResponse(options);
  let text: string;
  try {
    text = options.metrics.render();
  } catch {
    return new Response("metrics unavailable\n", { status: 500 });
  }
  return new Response(text, {
    headers: { "content-type": METRICS_CONTENT_TYPE, ...NO_STORE },
  });
}

/** Starts serving; a bind failure becomes one MetricsAddressError line. */
export function serveHealth(options: HealthServerOptions): HealthServer {
  const shown = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: options.hostname,
      port: options.port,
      onListen: () => {},
      onError: () => new Response("internal error\n", { status: 500 }),
    }, (request) => handle(request, options));
  } catch (error) {
    const reason = error instanceof Deno.errors.AddrInUse
      ? "address already in use"
      : error instanceof Deno.errors.AddrNotAvailable
      ? "address not available on this machine"
      : error instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : (error as Error).name;
    throw new MetricsAddressError(`--metrics ${shown}:${options.port}: cannot listen: ${reason}`);
  }
  const port = server.addr.port;
  return {
    url: `http://${shown}:${port}`,
    port,
    shutdown: () => server.shutdown(),
  };
}
