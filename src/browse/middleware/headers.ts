import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/**
 * The headers every answer carries, whatever produced it (a route, a guard's refusal, a 404,
 * the error handler): Hono's secure headers with frames denied, and no-store, since answers
 * are a user's data. HSTS is off: the server speaks plain HTTP, mostly on loopback.
 */
export function securityHeaders(): MiddlewareHandler {
  const secure = secureHeaders({ xFrameOptions: "DENY", strictTransportSecurity: false });
  return async function securityHeaders(c, next) {
    await secure(c, async () => {
      await next();
      c.res.headers.set("Cache-Control", "no-store");
    });
  };
}
