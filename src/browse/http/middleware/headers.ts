import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** Hono's secure headers as browse uses them: frames denied, no HSTS (plain HTTP, loopback). */
export const SECURE_OPTIONS = { xFrameOptions: "DENY", strictTransportSecurity: false } as const;

/**
 * What `securityHeaders()` puts on every answer: Hono's secure headers with SECURE_OPTIONS,
 * and no-store, since answers are a user's data. Written out so an answer can be built with
 * them at once; tests/browse/middleware/headers_test.ts holds this list equal to what Hono's
 * middleware sets.
 */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ["Cache-Control", "no-store"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Origin-Agent-Cluster", "?1"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Frame-Options", "DENY"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

const secured = new WeakSet<Response>();

/**
 * A response that carries SECURITY_HEADERS from the start, which the middleware then leaves
 * as it is. Setting a dozen headers one by one on every query answer after the fact was the
 * costliest middleware (half the request rate of a bare Hono route, ~5 KB of garbage each).
 */
export function securedResponse(
  body: BodyInit | null,
  status: number,
  headers: [string, string][],
): Response {
  for (const h of SECURITY_HEADERS) headers.push(h as [string, string]);
  const res = new Response(body, { status, headers });
  secured.add(res);
  return res;
}

/**
 * The headers every answer carries, whatever produced it (a route, a guard's refusal, a 404,
 * the error handler): Hono's secure headers with frames denied, and no-store. An answer built
 * by securedResponse has them already.
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
