import assert from "node:assert/strict";
import { connectionCap, descriptorLimit, Front } from "../../src/browse/http/front.ts";

Deno.test("front: the connection cap leaves descriptors for the rest, three per connection", () => {
  const limits = (soft: string) =>
    `Limit                     Soft Limit           Hard Limit           Units\n` +
    `Max open files            ${soft}                 4096                 files\n`;
  assert.equal(descriptorLimit(() => limits("1024")), 1024);
  assert.equal(descriptorLimit(() => limits("unlimited")), 1 << 20);
  assert.equal(descriptorLimit(() => "garbage"), null);
  assert.equal(
    descriptorLimit(() => {
      throw new Deno.errors.NotFound();
    }),
    null,
  );
  assert.equal(connectionCap(1024), 320);
  assert.equal(connectionCap(null), 320);
  assert.equal(connectionCap(40), 16);
});

Deno.test("front: headers past the limit get 431; a request relays to the backend and back", async () => {
  const backend = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => new Response(`seen ${new URL(req.url).pathname}`),
  );
  const front = new Front({
    hostname: "127.0.0.1",
    port: 0,
    maxHeaderBytes: 8192,
    backend: { transport: "tcp", hostname: "127.0.0.1", port: backend.addr.port },
  });
  const dropped: string[] = [];
  front.observe((e) => e.type === "dropped" && dropped.push(e.reason));
  try {
    const ok = await fetch(`http://127.0.0.1:${front.port}/x`);
    assert.equal(await ok.text(), "seen /x");
    const c = await Deno.connect({ hostname: "127.0.0.1", port: front.port });
    await c.write(new TextEncoder().encode(`GET / HTTP/1.1\r\nX-Big: ${"a".repeat(9000)}`));
    const answer = new TextDecoder().decode(await new Response(c.readable).arrayBuffer());
    assert.match(answer, /^HTTP\/1.1 431 /);
    assert.deepEqual(dropped, ["too-large"]);
  } finally {
    await front.close();
    await backend.shutdown();
  }
});
