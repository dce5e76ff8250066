import assert from "node:assert/strict";
import { Hono } from "hono";
import { originGuard } from "../../../src/browse/http/middleware/origin.ts";

function app(cors: string[]) {
  const a = new Hono();
  a.use("*", originGuard(cors));
  a.all("/x", (c) => c.text("reached"));
  return a;
}

const HOST = "127.0.0.1:8080";
const send = (a: Hono, method: string, headers: Record<string, string>, type = "text/plain") =>
  a.request(`http://${HOST}/x`, {
    method,
    headers: { Host: HOST, "Content-Type": type, ...headers },
    body: method === "POST" ? "select 1" : undefined,
  });

Deno.test("originGuard: other sites refused on every method and content type", async () => {
  const a = app([]);
  const foreign: Record<string, string>[] = [
    { Origin: "http://evil.example" },
    { Origin: "null" },
    { Origin: "https://127.0.0.1:8080" },
    { "Sec-Fetch-Site": "cross-site" },
    { "Sec-Fetch-Site": "same-site" },
    { Origin: "http://evil.example", "Sec-Fetch-Site": "same-origin" },
  ];
  for (const headers of foreign) {
    for (const method of ["GET", "POST"]) {
      for (const type of ["text/plain", "application/json", "application/x-www-form-urlencoded"]) {
        const r = await send(a, method, headers, type);
        assert.equal(r.status, 403, `${method} ${type} ${JSON.stringify(headers)}`);
        assert.match((await r.json()).error, /cross-origin/);
      }
    }
  }
});

Deno.test("originGuard: same origin, curl-like callers and --cors origins pass", async () => {
  const a = app([]);
  const honest: Record<string, string>[] = [
    {},
    { Origin: `http://${HOST}` },
    { "Sec-Fetch-Site": "same-origin" },
    { "Sec-Fetch-Site": "none" },
  ];
  for (const headers of honest) {
    const r = await send(a, "POST", headers);
    assert.equal(r.status, 200, JSON.stringify(headers));
    assert.equal(await r.text(), "reached");
  }
  const listed = await send(app(["http://ok.example"]), "POST", { Origin: "http://ok.example" });
  assert.equal(listed.status, 200);
  const unlisted = await send(app(["http://ok.example"]), "POST", { Origin: "http://no.example" });
  assert.equal(unlisted.status, 403);
});
