import assert from "node:assert/strict";
import { Hono } from "hono";
import { bodyLimitGuard } from "../../../src/browse/http/middleware/body_limit.ts";

function app() {
  const a = new Hono();
  a.use("*", bodyLimitGuard(10));
  a.post("/x", async (c) => c.text(`read ${(await c.req.text()).length}`));
  return a;
}

const stream = (text: string) => ReadableStream.from([new TextEncoder().encode(text)]);

Deno.test("bodyLimitGuard: bodies up to the limit reach the handler whole", async () => {
  for (const body of ["", "0123456789"]) {
    const r = await app().request("/x", { method: "POST", body });
    assert.equal(await r.text(), `read ${body.length}`);
  }
  const chunked = await app().request("/x", { method: "POST", body: stream("0123456789") });
  assert.equal(await chunked.text(), "read 10");
});

Deno.test("bodyLimitGuard: a larger body is a 413 JSON error, declared or streamed", async () => {
  const declared = await app().request("/x", { method: "POST", body: "0123456789a" });
  const streamed = await app().request("/x", { method: "POST", body: stream("0123456789a") });
  for (const r of [declared, streamed]) {
    assert.equal(r.status, 413);
    assert.deepEqual(await r.json(), { error: "request body larger than 10 bytes" });
  }
});
