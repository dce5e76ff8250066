import type { MiddlewareHandler } from "hono";
import { errorResponse } from "../http_error.ts";
import { hostAllowed, urlHostAllowed } from "../security.ts";

/**
 * Refuses a request whose Host is not a name of this server (DNS rebinding: a page on another
 * name that resolves to us carries its own name). Both the Host header and the authority Deno
 * put in the request URL are checked: an absolute-form request line can make them differ.
 */
export function hostGuard(allowed: Set<string> | null): MiddlewareHandler {
  return async function hostGuard(c, next) {
    if (!hostAllowed(allowed, c.req.header("host")) || !urlHostAllowed(allowed, c.req.url)) {
      return errorResponse(
        403,
        "this Host is not allowed (start with --host to serve other names)",
      );
    }
    return await next();
  };
}
