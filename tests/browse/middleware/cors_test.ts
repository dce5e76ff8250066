import assert from "node:assert/strict";
import { Hono } from "hono";
import { corsGuard } from "../../../src/browse/http/middleware/cors.ts";

function app(origins: string[]) {
  const a = new Hono();
  a.use("*", corsGuard(origins));
  a.get("/x", (c) => c.json([1]));
  return a;
}

Deno.test("corsGuard: preflights answered for the --cors origins only", async () => {
  const a = app(["http://allowed.example"]);
  const preflight = (origin: string) =>
    a.request("/x", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
    });
  const ok = await preflight("http://allowed.example");
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get("access-control-allow-origin"), "http://allowed.example");
  assert.equal(ok.headers.get("access-control-allow-methods"), "GET,POST");
  assert.equal(ok.headers.get("access-control-allow-headers"), "Authorization,Content-Type");
  assert.equal(ok.headers.get("access-control-max-age"), "600");
  for (const origin of ["http://evil.example", "null", ""]) {
    const bad = await preflight(origin);
    assert.equal(bad.status, 403, origin);
    assert.equal(bad.headers.get("access-control-allow-origin"), null);
    assert.deepEqual(await bad.json(), { error: "origin not allowed" });
  }
});

Deno.test("corsGuard: Origin null is never allowed, even when listed or with '*'", async () => {
  for (const origins of [["null"], ["*"]]) {
    const r = await app(origins).request("/x", {
      method: "OPTIONS",
      headers: { Origin: "null", "Access-Control-Request-Method": "POST" },
    });
    assert.equal(r.status, 403, origins[0]);
    const get = await app(origins).request("/x", { headers: { Origin: "null" } });
    assert.equal(get.headers.get("access-control-allow-origin"), null, origins[0]);
  }
});

Deno.test("corsGuard: answers name the allowed origin, never another", async () => {
  const a = app(["http://allowed.example"]);
  const allowed = await a.request("/x", { headers: { Origin: "http://allowed.example" } });
  assert.equal(allowed.headers.get("access-control-allow-origin"), "http://allowed.example");
  assert.match(allowed.headers.get("vary") ?? "", /Origin/);
  const other = await a.request("/x", { headers: { Origin: "http://evil.example" } });
  assert.equal(other.headers.get("access-control-allow-origin"), null);
  const none = await app([]).request("/x", { headers: { Origin: "http://allowed.example" } });
  assert.equal(none.headers.get("access-control-allow-origin"), null, "no --cors, no CORS");
  const star = await app(["*"]).request("/x", { headers: { Origin: "http://any.example" } });
  assert.equal(star.headers.get("access-control-allow-origin"), "*");
});

Deno.test("corsGuard: with no --cors, every preflight is refused and answers carry no CORS headers", async () => {
  const a = app([]);
  for (const origin of ["http://evil.example", "http://localhost:8080", "null", ""]) {
    const pre = await a.request("/x", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "GET" },
    });
    assert.equal(pre.status, 403, origin);
    assert.deepEqual(await pre.json(), { error: "origin not allowed" });
    const get = await a.request("/x", { headers: { Origin: origin } });
    assert.equal(get.status, 200, origin);
    const cors = [...get.headers.keys()].filter((k) => k.startsWith("access-control-"));
    assert.deepEqual(cors, [], origin);
  }
});
