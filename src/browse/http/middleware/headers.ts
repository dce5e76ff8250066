import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** Hono's secure headers as browse uses them: frames denied, no HSTS (plain HTTP, loopback). */
const SECURE_OPTIONS = { xFrameOptions: "DENY", strictTransportSecurity: false } as const;

/**
 * The headers of a data answer (rows as JSON, CSV or XML, never HTML): those that protect data
 * (no caching, no sniffing it into a document, no reading or framing it from another origin,
 * no referrer), valued as securityHeaders() values them (tests/browse/middleware/headers_test.ts).
 * The rest of what it sets act on documents (COOP, Origin-Agent-Cluster, DNS prefetch) or on
 * retired browsers and plugins (X-XSS-Protection, X-Download-Options,
 * X-Permitted-Cross-Domain-Policies); OWASP's REST Security Cheat Sheet names the same set for
 * an API. Their bytes put a point query's answer past what Deno's HTTP server writes in one
 * piece: head and body then went out as two writes, each relayed by the front (bench/NOTES.md).
 */
export const DATA_HEADERS: readonly (readonly [string, string])[] = [
  ["Cache-Control", "no-store"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
];

const secured = new WeakSet<Response>();

/**
 * A data answer, carrying DATA_HEADERS from the start; the middleware leaves it as it is.
 * Setting a dozen headers one by one on every query answer after the fact was the costliest
 * middleware (bench/NOTES.md).
 */
export function securedResponse(
  body: BodyInit | null,
  status: number,
  headers: [string, string][],
): Response {
  for (const h of DATA_HEADERS) headers.push(h as [string, string]);
  const res = new Response(body, { status, headers });
  secured.add(res);
  return res;
}

/**
 * The headers of every answer that is not a data answer, whatever produced it (the page, a
 * guard's refusal, a 404, the error handler): Hono's secure headers with frames denied, and
 * no-store. A data answer (securedResponse) has its own already.
 */
export function securityHeaders(): MiddlewareHandler {
  const secure = secureHeaders(SECURE_OPTIONS);
  const none = () => Promise.resolve();
  return async function securityHeaders(c, next) {
    await next();
    if (secured.has(c.res)) return;
    // Hono's middleware with nothing left to wait for: it sets its headers on the answer now.
    await secure(c, none);
    c.res.headers.set("Cache-Control", "no-store");
  };
}
