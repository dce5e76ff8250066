import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import {
  SECURE_OPTIONS,
  securedResponse,
  SECURITY_HEADERS,
  securityHeaders,
} from "../../../src/browse/http/middleware/headers.ts";

Deno.test("securityHeaders: on answers, refusals, thrown errors and 404s", async () => {
  const app = new Hono();
  app.use("*", securityHeaders());
  app.get("/ok", (c) => c.json({ ok: true }));
  app.get("/cached", (c) => c.text("x", 200, { "Cache-Control": "public, max-age=3600" }));
  app.get("/refused", () => new Response("no", { status: 401 }));
  app.get("/thrown", () => {
    throw new HTTPException(413, { res: new Response("big", { status: 413 }) });
  });
  app.get("/broken", () => {
    throw new Error("boom");
  });
  app.onError((e) =>
    e instanceof HTTPException ? e.getResponse() : new Response("", { status: 500 })
  );
  app.notFound(() => new Response("", { status: 404 }));
  for (
    const [path, status] of [
      ["/ok", 200],
      ["/cached", 200],
      ["/refused", 401],
      ["/thrown", 413],
      ["/broken", 500],
      ["/nope", 404],
    ] as const
  ) {
    const r = await app.request(path);
    assert.equal(r.status, status, path);
    assert.equal(r.headers.get("x-content-type-options"), "nosniff", path);
    assert.equal(r.headers.get("cache-control"), "no-store", path);
    assert.equal(r.headers.get("referrer-policy"), "no-referrer", path);
    assert.equal(r.headers.get("x-frame-options"), "DENY", path);
    assert.equal(r.headers.get("strict-transport-security"), null, "plain HTTP: no HSTS");
  }
});

Deno.test("securityHeaders: the written-out list is what Hono's secureHeaders sets, and no-store", async () => {
  const app = new Hono();
  app.use("*", secureHeaders(SECURE_OPTIONS));
  app.get("/", () => new Response(null, { headers: { "Cache-Control": "no-store" } }));
  const fromHono = [...(await app.request("/")).headers].sort();
  const ours = SECURITY_HEADERS.map(([k, v]) => [k.toLowerCase(), v]).sort();
  assert.deepEqual(ours, fromHono);
});

Deno.test("securityHeaders: an answer built with them leaves the middleware with the same headers", async () => {
  const app = new Hono();
  app.use("*", securityHeaders());
  app.get("/built", () => securedResponse("{}", 200, [["Content-Type", "application/json"]]));
  app.get("/plain", () => new Response("{}", { headers: { "Content-Type": "application/json" } }));
  const built = await app.request("/built");
  const plain = await app.request("/plain");
  assert.deepEqual([...built.headers], [...plain.headers]);
  assert.equal(built.headers.get("x-frame-options"), "DENY");
  assert.equal(built.headers.get("cache-control"), "no-store");
  assert.equal(await built.text(), "{}");
});
