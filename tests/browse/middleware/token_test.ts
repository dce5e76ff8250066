import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { tokenGuard } from "../../../src/browse/http/middleware/token.ts";

const TOKEN = "s3cret-token-value";

function app() {
  const a = new Hono();
  a.use("*", tokenGuard(TOKEN));
  a.get("/x", (c) => c.json(["data"]));
  // As in the browser's app: Hono's middleware refuses by throwing its answer.
  a.onError((e) =>
    e instanceof HTTPException ? e.getResponse() : new Response("", { status: 500 })
  );
  return a;
}

Deno.test("tokenGuard: the right bearer token passes", async () => {
  for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer  ${TOKEN}`]) {
    const r = await app().request("/x", { headers: { Authorization: header } });
    assert.equal(r.status, 200, header);
    assert.deepEqual(await r.json(), ["data"]);
  }
});

Deno.test("tokenGuard: every other header is the same 401, without the token in it", async () => {
  for (
    const header of [
      undefined,
      "",
      "Bearer",
      "Bearer nope",
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Basic ${btoa(`x:${TOKEN}`)}`,
      `Bearer ${TOKEN} extra`,
      `Bearer "${TOKEN}"`,
      TOKEN,
    ]
  ) {
    const r = await app().request("/x", {
      headers: header === undefined ? {} : { Authorization: header },
    });
    const text = await r.text();
    assert.equal(r.status, 401, String(header));
    assert.deepEqual(JSON.parse(text), { error: "missing or wrong bearer token" });
    assert.match(r.headers.get("www-authenticate") ?? "", /^Bearer realm="courier browse"/);
    assert.match(r.headers.get("content-type") ?? "", /application\/json/);
    assert.ok(!text.includes(TOKEN.slice(0, 6)));
  }
});
