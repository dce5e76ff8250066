/**
 * What went wrong when fetch threw: Deno says only "fetch failed" and puts the real error (the
 * HTTP client's, in its own words) in `error.cause`. This names the failure in a user's words
 * and says whether it happened on the way to the proxy or to the server.
 */
import type { ProxySpec } from "./proxy.ts";

export interface NetworkFailure {
  /** One line: "connection refused", "name not resolved (DNS)", "TLS failure: ...". */
  reason: string;
  /** True when the proxy, not the server behind it, is the one that failed. */
  atProxy: boolean;
}

/** The messages of an error and its causes, outermost first. */
export function causeChain(error: unknown): string[] {
  const messages: string[] = [];
  for (let e: unknown = error, depth = 0; e != null && depth < 8; depth++) {
    messages.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return messages;
}

interface Rule {
  test: RegExp;
  reason: (match: RegExpMatchArray) => string;
}

/** Most specific first: hyper, rustls and the SOCKS client each word their errors. */
const RULES: Rule[] = [
  { test: /Proxy server unreachable/i, reason: () => "cannot connect (refused or unreachable)" },
  { test: /connection refused|os error 111\b/i, reason: () => "connection refused" },
  { test: /connection reset|os error 104\b/i, reason: () => "connection reset" },
  {
    test: /connection closed before message completed|unexpected end of file|unexpected eof/i,
    reason: () => "connection closed before the answer (reset)",
  },
  {
    test: /dns error|failed to lookup address|name or service not known|no address associated/i,
    reason: () => "name not resolved (DNS)",
  },
  {
    test: /invalid peer certificate:\s*([^\n]*)/i,
    reason: (m) => `TLS failure: certificate not accepted (${certProblem(m[1])})`,
  },
  {
    test: /tls handshake eof|received corrupt message|InvalidContentType/i,
    reason: () => "TLS failure: the server does not speak TLS there (is it an https port?)",
  },
  {
    test: /\b(?:tls|ssl|certificate|handshake)\b[^\n]*/i,
    reason: (m) => `TLS failure: ${m[0]}`,
  },
  { test: /timed out|os error 110\b/i, reason: () => "connection timed out" },
  { test: /no route to host|os error 113\b/i, reason: () => "no route to host" },
  { test: /network is unreachable|os error 101\b/i, reason: () => "network unreachable" },
  // Deno's WebSocket client says no more than this.
  { test: /tcp connect error/i, reason: () => "cannot connect (refused or unreachable)" },
];

/** rustls' names for what is wrong with a certificate, in words. */
function certProblem(detail: string): string {
  if (/UnknownIssuer|CaUsedAsEndEntity|SelfSigned/i.test(detail)) {
    return "not issued by a trusted CA";
  }
  if (/NotValidForName/i.test(detail)) return "not valid for this host name";
  if (/Expired/i.test(detail)) return "expired";
  if (/NotValidYet/i.test(detail)) return "not valid yet";
  if (/Revoked/i.test(detail)) return "revoked";
  return detail.replace(/\s+/g, " ").trim().slice(0, 80) || "rejected";
}

/** The HTTP client's own words, without its "error sending request for url (...)" framing. */
function innermost(messages: string[]): string {
  const last = messages[messages.length - 1] ?? "";
  return last
    .replace(/^error sending request (?:for url \([^)]*\)|from \S+ for \S+ \([^)]*\))\s*:\s*/i, "")
    .replace(/client error \(\w+\):\s*/gi, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * What a proxy answers when it is up but cannot reach the server: SOCKS reply codes (in the
 * SOCKS client's words, with no "os error" of a local socket) and a refused CONNECT tunnel.
 */
const PROXY_REPLIES: [RegExp, string][] = [
  [/\(Connect\): Connection refused\s*$/im, "connection refused"],
  [/\(Connect\): Host unreachable\s*$/im, "host unreachable"],
  [/\(Connect\): Network unreachable\s*$/im, "network unreachable"],
  [/\(Connect\): TTL expired\s*$/im, "TTL expired"],
  [/\(Connect\): Connection not allowed by ruleset\s*$/im, "not allowed by the proxy's rules"],
  [/\(Connect\): General SOCKS server failure\s*$/im, "cannot reach the server"],
  [/\(Connect\): unsuccessful tunnel\s*$/im, "cannot open a tunnel to the server"],
];

const IP_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|[0-9a-f:]*:[0-9a-f:.]*)$/i;

/**
 * Classifies a fetch failure. `proxy` is the proxy the request went through, if any: a failure
 * to connect is then the proxy's (the client connects to the proxy first and, except for
 * `socks5://`, leaves resolving the server's name to it). `url` is the URL requested.
 */
export function describeNetworkFailure(
  error: unknown,
  proxy: ProxySpec | null = null,
  url = "",
): NetworkFailure {
  const messages = causeChain(error);
  const all = messages.join("\n");
  const rule = RULES.find((r) => r.test.test(all));
  const reason = rule ? rule.reason(all.match(rule.test)!) : innermost(messages) || "fetch failed";
  if (proxy === null) return { reason, atProxy: false };
  for (const [test, said] of PROXY_REPLIES) {
    if (test.test(all)) return { reason: `${said} (says the proxy)`, atProxy: false };
  }
  const tls = reason.startsWith("TLS failure");
  const connecting = /client error \(Connect\)/i.test(all) ||
    /Proxy server unreachable|tunneling/i.test(all);
  // A TLS failure is the server's, whose certificate comes through the tunnel; but a plain-http
  // request through an https:// proxy has no TLS other than the proxy's.
  let atProxy = connecting && (!tls || (proxy.kind === "https" && url.startsWith("http:")));
  if (atProxy && reason.startsWith("name not resolved") && proxy.kind === "socks5") {
    // socks5:// (not socks5h) resolves the server's name here: the name that failed is the
    // server's, unless the proxy too is known by name (then either could be; say the proxy).
    atProxy = proxy.remoteDns || !IP_LITERAL.test(proxy.host);
  }
  // Through an HTTP proxy a plain-http request is sent to, and answered by, the proxy itself.
  const httpProxy = proxy.kind === "http" || proxy.kind === "https";
  if (!connecting && httpProxy && url.startsWith("http:")) atProxy = true;
  return { reason, atProxy };
}

/** A WebSocket that could not connect at all, in the words of Deno's client. */
const CONNECT_FAILURE =
  /tcp connect error|connection refused|dns error|failed to lookup|timed out|unreachable|no route to host|connection reset/i;

/**
 * Whether a database client's error (@libsql/client) is that the server could not be reached:
 * fetch's failure, which never has an answer, or a WebSocket that could not connect (not one the
 * server answered with a refusal, which is the server's to say).
 */
export function isUnreachable(error: unknown): boolean {
  const messages = causeChain(error);
  if (/^fetch failed/i.test(messages[0] ?? "")) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === "HRANA_WEBSOCKET_ERROR" && CONNECT_FAILURE.test(messages.join("\n"));
}

/** A libSQL server that could not be reached, in the words the store and browse both use. */
export function cannotReach(shownUrl: string, reason: string): string {
  return `cannot reach the libSQL server at ${shownUrl}: ${reason}`;
}
