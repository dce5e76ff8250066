import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { errorResponse } from "../http_error.ts";

/** Refuses a body over `maxBytes`, declared or streamed, before any handler reads it. */
export function bodyLimitGuard(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => errorResponse(413, `request body larger than ${maxBytes} bytes`),
  });
}
