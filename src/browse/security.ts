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

/** Compares a presented bearer token with the expected one in time independent of content. */
export function tokenMatches(header: string | undefined, expected: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!m) return false;
  const a = new TextEncoder().encode(m[1].trim());
  const b = new TextEncoder().encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i];
  return diff === 0;
}
