/**
 * The pages' sign-in when the server has a token: the token is posted once from a form and
 * the browser keeps a cookie derived from it (HttpOnly, SameSite=Strict), so the token itself
 * never appears in a URL, a page or a cookie. Requests without the cookie get the sign-in form.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { timingSafeEqual } from "hono/utils/buffer";

export const COOKIE = "courier_browse";

/** HMAC-SHA256 of a fixed label under the token, hex: what the cookie holds. */
export async function sessionValue(token: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(token),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode("courier browse page"),
  );
  return new Uint8Array(mac).toHex();
}

/** Where to go after signing in: a path on this site only. */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return "/";
  return next;
}

/** Lets a request through when it carries the cookie; otherwise `refuse` answers it. */
export function sessionGuard(
  expected: Promise<string>,
  refuse: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async function sessionGuard(c, next) {
    const have = getCookie(c, COOKIE) ?? "";
    if (!await timingSafeEqual(have, await expected)) return await refuse(c);
    return await next();
  };
}
