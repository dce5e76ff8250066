import type { MiddlewareHandler } from "hono";
import { errorResponse } from "../http_error.ts";
import { originAllowed } from "../security.ts";

/**
 * Refuses requests a browser says come from another site: a foreign or `null` Origin, or
 * Sec-Fetch-Site cross-site/same-site, on every method and content type, unless `--cors`
 * allows the origin. Requests without those headers (curl, scripts) pass: they carry no
 * ambient credentials of a user. Hono's csrf middleware does not fit here: it checks only
 * unsafe methods with form-like content types, and refuses a POST that has neither header,
 * which is exactly how curl and scripts send a text/plain query.
 */
export function originGuard(cors: readonly string[]): MiddlewareHandler {
  return async function originGuard(c, next) {
    const allowed = originAllowed(
      c.req.header("origin"),
      c.req.header("sec-fetch-site"),
      c.req.header("host"),
      cors,
    );
    if (!allowed) return errorResponse(403, "cross-origin request refused (see --cors)");
    return await next();
  };
}
