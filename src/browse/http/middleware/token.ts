import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { errorResponse } from "../http_error.ts";

const REALM = 'Bearer realm="courier browse"';

/**
 * Every API call carries `Authorization: Bearer <token>`. Hono's bearerAuth compares in time
 * independent of the token; every refusal is our 401 `{"error"}` with the realm, whether the
 * header is missing, malformed or wrong, so a caller learns nothing from which one it was.
 */
export function tokenGuard(token: string): MiddlewareHandler {
  const refuse = (_c: Context) => errorResponse(401, "missing or wrong bearer token");
  return bearerAuth({
    token,
    noAuthenticationHeader: { message: refuse, wwwAuthenticateHeader: REALM },
    invalidAuthenticationHeader: {
      message: refuse,
      wwwAuthenticateHeader: `${REALM}, error="invalid_request"`,
    },
    invalidToken: { message: refuse, wwwAuthenticateHeader: `${REALM}, error="invalid_token"` },
  });
}
