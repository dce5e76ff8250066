import assert from "node:assert/strict";
import { Hono } from "hono";
import { hostGuard } from "../../../src/browse/http/middleware/host.ts";
import { allowedHosts } from "../../../src/browse/http/security.ts";

function app(bindHost: string) {
  const a = new Hono();
  a.use("*", hostGuard(allowedHosts(bindHost, 8080)));
  a.get("*", (c) => c.text("ok"));
  return a;
}

Deno.test("hostGuard: only this server's names, in the Host header and the URL alike", async () => {
  const loop = app("127.0.0.1");
  const get = (url: string, host?: string) =>
    loop.request(url, { headers: host === undefined ? {} : { Host: host } });
  for (const host of ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"]) {
    const r = await get(`http://${host}/any/path`, host);
    assert.equal(r.status, 200, host);
  }
  for (const host of ["evil.example:8080", "127.0.0.1:9999", "127.0.0.1", "localhost.evil:8080"]) {
    const r = await get(`http://${host}/api/info`, host);
    assert.equal(r.status, 403, host);
    assert.match((await r.json()).error, /Host is not allowed/);
  }
  const noHost = await get("http://127.0.0.1:8080/");
  assert.equal(noHost.status, 403, "a request without Host is refused");
  const mismatch = await get("http://evil.example/api/info", "127.0.0.1:8080");
  assert.equal(mismatch.status, 403, "an absolute-form URL with another authority");
});

Deno.test("hostGuard: a wildcard bind accepts any name (the token guards it)", async () => {
  const r = await app("0.0.0.0").request("http://box.lan:8080/", {
    headers: { Host: "box.lan:8080" },
  });
  assert.equal(r.status, 200);
});
