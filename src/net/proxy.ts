/**
 * Proxy values from the configuration, parsed into a form the HTTP client layer can use.
 * Pure: no I/O, so the config validator can call it for every `proxy` value.
 */
import { Secret } from "../secrets/secret.ts";

/** An HTTP(S) proxy; `url` is `scheme://host:port` without credentials. */
export interface HttpProxySpec {
  kind: "http" | "https";
  url: string;
  host: string;
  port: number;
  username?: string;
  password?: Secret;
}

/** A SOCKS5 proxy over TCP; `remoteDns` is true for `socks5h://` (the proxy resolves names). */
export interface Socks5ProxySpec {
  kind: "socks5";
  url: string;
  remoteDns: boolean;
  host: string;
  port: number;
  username?: string;
  password?: Secret;
}

/** A SOCKS5 proxy listening on a unix socket (`socks5://unix/<absolute path>`). */
export interface Socks5UnixProxySpec {
  kind: "socks5-unix";
  path: string;
  username?: string;
  password?: Secret;
}

export type ProxySpec = HttpProxySpec | Socks5ProxySpec | Socks5UnixProxySpec;

/** An invalid proxy value. The message is one line and never contains the password. */
export class ProxyError extends Error {
  override name = "ProxyError";
  /** A config value: exit code 2, nothing was done. */
  readonly exitCode = 2;
}

const DEFAULT_PORTS: Record<string, number> = {
  "http:": 80,
  "https:": 443,
  "socks5:": 1080,
  "socks5h:": 1080,
};

const UNIX_PREFIX = /^socks5h?:\/\/(?:([^@/]*)@)?unix(\/.*)?$/is;

/**
 * Parses a proxy value. Accepted: `http://`, `https://`, `socks5://`, `socks5h://` with
 * `host[:port]` and optional percent-encoded `user:pass@`, and `socks5://unix/<absolute path>`.
 * Throws ProxyError for anything else.
 */
export function parseProxy(value: string): ProxySpec {
  const shown = displayInvalid(value);
  const fail = (reason: string): never => {
    throw new ProxyError(`invalid proxy ${JSON.stringify(shown)}: ${reason}`);
  };
  // deno-lint-ignore no-control-regex -- control characters are exactly what is rejected here
  if (value.trim() !== value || /[\s\x00-\x1f\x7f]/.test(value)) {
    fail("contains whitespace or control characters");
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) fail("expected scheme://host:port");
  if (!(`${scheme}:` in DEFAULT_PORTS)) {
    fail(`unsupported scheme "${scheme}" (use http, https, socks5 or socks5h)`);
  }

  const unix = UNIX_PREFIX.exec(value);
  if (unix) return parseUnix(unix[1], unix[2], fail);

  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // URL's own message repeats the input, password included.
    return fail("not a valid URL (percent-encode special characters in user and password)");
  }
  const host = url.hostname.toLowerCase();
  if (host === "") fail("empty host");
  if (url.port === "0") fail("port must be 1-65535");
  if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    fail("a proxy URL has no path, query or fragment");
  }
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  const creds = credentials(url.username, url.password, fail);
  const hostPort = `${host}:${port}`;
  if (scheme === "http" || scheme === "https") {
    return { kind: scheme, url: `${scheme}://${hostPort}`, host, port, ...creds };
  }
  return {
    kind: "socks5",
    url: `${scheme}://${hostPort}`,
    remoteDns: scheme === "socks5h",
    host,
    port,
    ...creds,
  };
}

/** The proxy for display: scheme, host, port, user name; never the password. */
export function describeProxy(spec: ProxySpec): string {
  const user = spec.username === undefined
    ? ""
    : `${encodeURIComponent(spec.username)}${spec.password === undefined ? "" : ":***"}@`;
  if (spec.kind === "socks5-unix") return `socks5://${user}unix${spec.path}`;
  return spec.url.replace("://", `://${user}`);
}

function parseUnix(
  rawCreds: string | undefined,
  rawPath: string | undefined,
  fail: (reason: string) => never,
): Socks5UnixProxySpec {
  if (rawPath === undefined || rawPath === "/") fail("missing socket path after socks5://unix/");
  const path = decode(rawPath.replace(/^\/+/, "/"), "socket path", fail);
  if (/[?#]/.test(rawPath)) fail("a unix socket path has no query or fragment");
  if (path.split("/").some((seg) => seg === "." || seg === "..")) {
    fail("socket path must be absolute, without . or .. segments");
  }
  if (path.endsWith("/")) fail("socket path must name a socket, not a directory");
  let creds: { username?: string; password?: Secret } = {};
  if (rawCreds !== undefined) {
    const colon = rawCreds.indexOf(":");
    creds = colon < 0
      ? credentials(rawCreds, "", fail)
      : credentials(rawCreds.slice(0, colon), rawCreds.slice(colon + 1), fail);
  }
  return { kind: "socks5-unix", path, ...creds };
}

function credentials(
  rawUser: string,
  rawPass: string,
  fail: (reason: string) => never,
): { username?: string; password?: Secret } {
  if (rawUser === "" && rawPass === "") return {};
  const username = decode(rawUser, "user name", fail);
  if (username === "") fail("password given without a user name");
  // A user without a password is allowed (curl does the same); the password is then empty.
  return { username, password: new Secret(decode(rawPass, "password", fail)) };
}

function decode(raw: string, what: string, fail: (reason: string) => never): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return fail(`bad percent-encoding in ${what}`);
  }
}

/**
 * An unparsed value for an error message. Where credentials end cannot be known for sure in an
 * invalid value, so everything between `://` and the last `@` is hidden.
 */
function displayInvalid(value: string): string {
  // deno-lint-ignore no-control-regex -- keeps the message on one line
  const oneLine = value.replace(/[\x00-\x1f\x7f]/g, "?");
  const at = oneLine.lastIndexOf("@");
  const start = oneLine.indexOf("://");
  if (at < 0) return oneLine;
  if (start < 0 || start > at) return "***" + oneLine.slice(at);
  return oneLine.slice(0, start + 3) + "***" + oneLine.slice(at);
}
