import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import {
  DATA_HEADERS,
  securedResponse,
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

Deno.test("securityHeaders: a data answer's headers are set as the middleware sets them", async () => {
  const app = new Hono();
  app.use("*", securityHeaders());
  app.get("/", () => new Response(null));
  const fromMiddleware = new Map((await app.request("/")).headers);
  for (const [name, value] of DATA_HEADERS) {
    assert.equal(fromMiddleware.get(name.toLowerCase()), value, name);
  }
  // What a data answer leaves out acts only on documents, or on retired browsers and plugins.
  const left = [...fromMiddleware.keys()].filter((name) =>
    !DATA_HEADERS.some(([n]) => n.toLowerCase() === name)
  );
  assert.deepEqual(left.sort(), [
    "cross-origin-opener-policy",
    "origin-agent-cluster",
    "x-dns-prefetch-control",
    "x-download-options",
    "x-permitted-cross-domain-policies",
    "x-xss-protection",
  ]);
});

Deno.test("securityHeaders: a data answer keeps its own headers, and the middleware adds none", async () => {
  const app = new Hono();
  app.use("*", securityHeaders());
  app.get("/built", () => securedResponse("{}", 200, [["Content-Type", "application/json"]]));
  const built = await app.request("/built");
  assert.deepEqual(
    [...built.headers].sort(),
    [["content-type", "application/json"], ...DATA_HEADERS.map(([k, v]) => [k.toLowerCase(), v])]
      .sort(),
  );
  assert.equal(built.headers.get("x-frame-options"), "DENY");
  assert.equal(built.headers.get("cache-control"), "no-store");
  assert.equal(await built.text(), "{}");
});
