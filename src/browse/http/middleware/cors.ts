import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { errorResponse } from "../http_error.ts";

/**
 * CORS for the `--cors` origins only: their preflights are answered and their answers carry
 * Access-Control-Allow-Origin; any other origin's preflight is refused outright (Hono's cors
 * would answer it 204, merely without the allow headers). `*` is only accepted with a token
 * (startBrowser refuses it otherwise).
 */
export function corsGuard(origins: readonly string[]): MiddlewareHandler {
  if (origins.length === 0) {
    // No origin is allowed: every preflight is refused, and Hono's cors would add nothing to
    // an answer but `Vary: Origin` (all answers are no-store), at a cost on every request
    // (bench/NOTES.md).
    return async function corsGuard(c, next) {
      if (c.req.method === "OPTIONS") return errorResponse(403, "origin not allowed");
      return await next();
    };
  }
  const any = origins.includes("*");
  // `null` is what sandboxed frames of any site send: never an origin to trust, as in originGuard.
  const allows = (origin: string) =>
    origin !== "" && origin !== "null" && (any || origins.includes(origin));
  const handler = cors({
    origin: (origin) => allows(origin) ? (any ? "*" : origin) : null,
    allowMethods: ["GET", "POST"],
    allowHeaders: ["Authorization", "Content-Type"],
    maxAge: 600,
  });
  return async function corsGuard(c, next) {
    if (c.req.method === "OPTIONS" && !allows(c.req.header("origin") ?? "")) {
      return errorResponse(403, "origin not allowed");
    }
    return await handler(c, next);
  };
}
