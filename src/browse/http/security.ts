/** Pure decisions about who may call the API: host names, origins, tokens. */

/** Whether a bind address or Host name is this machine only. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "0.0.0.0" || h === "::" || h === "";
}

function bracket(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/**
 * The Host header values a request may carry, or null when any is fine (a wildcard bind,
 * where a token is required anyway). A page on another name that resolves to us (DNS
 * rebinding) carries its own name and is refused.
 */
export function allowedHosts(bindHost: string, port: number): Set<string> | null {
  if (isWildcard(bindHost)) return null;
  const names = isLoopback(bindHost)
    ? ["localhost", "127.0.0.1", "[::1]", bracket(bindHost)]
    : [bracket(bindHost)];
  const out = new Set<string>();
  for (const n of names) {
    out.add(`${n.toLowerCase()}:${port}`);
    if (port === 80) out.add(n.toLowerCase());
  }
  return out;
}

/** Whether the authority of a request URL (as the server put it together) is allowed. */
export function urlHostAllowed(allowed: Set<string> | null, url: string): boolean {
  if (allowed === null) return true;
  try {
    return hostAllowed(allowed, new URL(url).host);
  } catch {
    return false;
  }
}

export function hostAllowed(allowed: Set<string> | null, hostHeader: string | undefined): boolean {
  if (allowed === null) return true;
  return hostHeader !== undefined && allowed.has(hostHeader.toLowerCase());
}

/**
 * Whether a request may come from where its browser says it comes from. Same-origin and
 * `--cors` origins pass; other sites are refused (a cross-site form POST would otherwise run
 * statements with the user's access). Requests without browser headers (curl) pass.
 */
export function originAllowed(
  origin: string | undefined,
  fetchSite: string | undefined,
  hostHeader: string | undefined,
  cors: readonly string[],
): boolean {
  if (origin !== undefined && origin !== "null") {
    if (cors.includes(origin) || cors.includes("*")) return true;
    return hostHeader !== undefined &&
      origin.toLowerCase() === `http://${hostHeader.toLowerCase()}`;
  }
  if (origin === "null") return false;
  return fetchSite !== "cross-site" && fetchSite !== "same-site";
}

/** RFC 6750's b64token: the only tokens a Bearer header can carry unchanged. */
const TOKEN_CHARS = /^[A-Za-z0-9._~+/-]+=*$/;

/**
 * Why a set of access options is unsafe or unusable, as one line, or null. Checked before
 * serving, by the CLI and by startBrowser alike, so library use is held to the same rules.
 * The token itself never appears in the reason.
 */
export function accessProblem(options: {
  host: string;
  token?: string;
  cors: readonly string[];
}): string | null {
  const { token } = options;
  if (token !== undefined) {
    if (token.length < 8) return "the token must be at least 8 characters";
    if (!TOKEN_CHARS.test(token)) {
      return "the token may hold only letters, digits and . _ ~ + / - (then = padding)";
    }
  }
  if (!isLoopback(options.host) && !token) {
    return `refusing to serve on ${options.host} without a token (--token-file or $COURIER_BROWSE_TOKEN): anyone who can reach it could read the database`;
  }
  if (options.cors.includes("*") && !token) {
    return "--cors '*' needs a token (--token-file or $COURIER_BROWSE_TOKEN): without one any website could read the database";
  }
  return null;
}
