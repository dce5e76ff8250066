import assert from "node:assert/strict";
import { connectionCap, descriptorLimit, Front } from "../../src/browse/http/front.ts";
import { bounded } from "../support/deadline.ts";

/** A front capped at `maxConnections` before a TCP backend, its events as text, and a connect. */
function frontTo(port: number, maxConnections: number) {
  const front = new Front({
    hostname: "127.0.0.1",
    port: 0,
    maxConnections,
    backend: { transport: "tcp", hostname: "127.0.0.1", port },
  });
  const events: string[] = [];
  front.observe((e) => events.push(e.type === "dropped" ? `dropped:${e.reason}` : e.type));
  const conns: Deno.Conn[] = [];
  const connect = async () => {
    const c = await Deno.connect({ hostname: "127.0.0.1", port: front.port });
    conns.push(c);
    return c;
  };
  const closeAll = () => {
    for (const c of conns) {
      try {
        c.close();
      } catch { /* closed */ }
    }
  };
  return { front, events, connect, closeAll };
}

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

const enc = new TextEncoder();

/** Reads from `c` until `text` has arrived; returns all read. */
async function readUntil(c: Deno.Conn, text: string): Promise<string> {
  let seen = "";
  const buf = new Uint8Array(4096);
  while (!seen.includes(text)) {
    const n = await c.read(buf);
    if (n === null) throw new Error(`closed before ${JSON.stringify(text)}; got ${seen}`);
    seen += new TextDecoder().decode(buf.subarray(0, n));
  }
  return seen;
}

Deno.test(
  "front: at the cap, idle kept-alive connections go first, then those sending headers; never one being answered",
  bounded(60_000, async (deadline) => {
    const release: (() => void)[] = [];
    let arrived: () => void = () => {};
    const backend = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (req) => {
        if (new URL(req.url).pathname === "/slow") {
          arrived();
          await new Promise<void>((r) => release.push(r));
          return new Response("slow done");
        }
        return new Response("quick");
      },
    );
    const { front, events, connect, closeAll } = frontTo(backend.addr.port, 3);
    const slow = async (c: Deno.Conn) => {
      const there = new Promise<void>((r) => (arrived = r));
      await c.write(enc.encode("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"));
      await there;
    };
    const closed = (c: Deno.Conn, what: string) =>
      deadline.within(what, c.read(new Uint8Array(16)).then((n) => n === null));
    try {
      // A: a request being answered; B: idle after one answer (kept alive); C: half a header.
      const a = await connect();
      await slow(a);
      const b = await connect();
      await b.write(enc.encode("GET /quick HTTP/1.1\r\nHost: x\r\n\r\n"));
      await readUntil(b, "quick");
      const c = await connect();
      await c.write(enc.encode("GET /quick HTTP/1.1\r\nHo"));
      // At the cap: the idle one goes first, then the one still sending headers.
      const d = await connect();
      assert.ok(await closed(b, "the idle kept-alive connection dropped"));
      await slow(d);
      const e = await connect();
      assert.ok(await closed(c, "the connection sending headers dropped"));
      await slow(e);
      // Every connection has a request being answered: a new one is refused, not one of them.
      const f = await connect();
      const refused = await deadline.within("the 503", readUntil(f, "retry later"));
      assert.match(refused, /^HTTP\/1.1 503 /);
      assert.match(refused, /\r\nRetry-After: 1\r\n/);
      assert.deepEqual(events, ["dropped:cap", "dropped:cap", "refused"]);
      for (const r of release) r();
      for (const conn of [a, d, e]) {
        assert.match(await readUntil(conn, "slow done"), /^HTTP\/1.1 200 /);
      }
    } finally {
      closeAll();
      await front.close();
      await backend.shutdown();
    }
  }),
);

Deno.test(
  "front: a dropped connection keeps its place until the backend has closed its end",
  bounded(60_000, async (deadline) => {
    // A backend that answers every request and never closes a connection until told: its end
    // of a dropped connection stays open, as Deno.serve's does until it sees the front's.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const serving = (async () => {
      for await (const conn of listener) {
        held.push(conn);
        (async () => {
          const buf = new Uint8Array(4096);
          let text = "";
          for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
            text += new TextDecoder().decode(buf.subarray(0, n));
            while (text.includes("\r\n\r\n")) {
              text = text.slice(text.indexOf("\r\n\r\n") + 4);
              await conn.write(enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nquick"));
            }
          }
        })().catch(() => {});
      }
    })().catch(() => {});
    const { front, events, connect, closeAll } = frontTo(listener.addr.port, 1);
    try {
      const a = await connect();
      await a.write(enc.encode("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
      await deadline.within("a's answer", readUntil(a, "quick"));
      // At the cap: a, idle, is dropped; its backend end is still open, so its place is not
      // free and b is refused. Before, a's place was freed at once and b let in.
      const b = await connect();
      const refused = await deadline.within("the 503", readUntil(b, "retry later"));
      assert.match(refused, /^HTTP\/1.1 503 /);
      assert.deepEqual(events, ["dropped:cap", "refused"]);
      assert.equal(front.connections, 1);
      // Once the backend has closed its end (the front sees it as it can), the place is free.
      for (const c of held) c.close();
      const answered = deadline.within(
        "an answer once the backend closed",
        (async () => {
          for (;;) {
            const c = await connect();
            await c.write(enc.encode("GET /c HTTP/1.1\r\nHost: x\r\n\r\n"));
            const text = await readUntil(c, "quick").catch((e: Error) => e.message);
            if (text.startsWith("HTTP/1.1 200 ")) return text;
            assert.match(text, /got HTTP\/1.1 503 /);
          }
        })(),
      );
      assert.match(await answered, /^HTTP\/1.1 200 /);
      assert.equal(front.connections, 1);
    } finally {
      closeAll();
      await front.close();
      listener.close();
      await serving;
    }
  }),
);

/** What `c` sends first, as text; "" when it closes (or resets) with nothing sent. */
async function firstRead(c: Deno.Conn): Promise<string> {
  const buf = new Uint8Array(4096);
  const n = await c.read(buf).catch((e) => {
    if (e instanceof Deno.errors.ConnectionReset) return null;
    throw e;
  });
  return n === null ? "" : new TextDecoder().decode(buf.subarray(0, n));
}

/** A front before a Deno.serve backend that names each request's path and client. */
function taggingFront(
  handler?: (req: Request) => Response | undefined,
): { front: Front; events: string[]; stop: () => Promise<void> } {
  const front = new Front({ hostname: "127.0.0.1", port: 0 });
  const backend = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) =>
      handler?.(req) ??
        new Response(`${new URL(req.url).pathname} client=${front.tags.clientOf(req.headers)}`),
  );
  front.setBackend({ transport: "tcp", hostname: "127.0.0.1", port: backend.addr.port });
  const events: string[] = [];
  front.observe((e) => events.push(e.type === "dropped" ? `dropped:${e.reason}` : e.type));
  return { front, events, stop: async () => (await front.close(), await backend.shutdown()) };
}

/** curl's GET of `path` through the front, asking for HTTP/2 as `flag` says. */
function curlGet(flag: string, front: Front, path: string): Promise<Deno.CommandOutput> {
  const url = `http://127.0.0.1:${front.port}${path}`;
  return new Deno.Command("curl", { args: ["-s", "--max-time", "30", flag, url] }).output();
}

const WEBSOCKET_UPGRADE = "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n" +
  "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";

Deno.test(
  "front: HTTP/2 with prior knowledge is closed with nothing sent, never relayed to the backend",
  bounded(60_000, async (deadline) => {
    // Before, Deno.serve spoke HTTP/2 through the front: untagged requests, never-ending framing.
    const { front, events, stop } = taggingFront();
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port: front.port });
      // The preface and an empty SETTINGS frame, as an HTTP/2 client opens.
      await c.write(enc.encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
      await c.write(new Uint8Array([0, 0, 0, 4, 0, 0, 0, 0, 0]));
      assert.equal(await deadline.within("the close", firstRead(c)), "");
      c.close();
      assert.deepEqual(events, ["dropped:protocol"]);
      assert.equal(front.tags.size, 0);
      const curl = await deadline.within("curl", curlGet("--http2-prior-knowledge", front, "/x"));
      assert.notEqual(curl.code, 0);
      assert.equal(new TextDecoder().decode(curl.stdout), "");
      // HTTP/1.1 on the same front is answered as before.
      const ok = await fetch(`http://127.0.0.1:${front.port}/y`);
      assert.equal(await ok.text(), "/y client=127.0.0.1");
    } finally {
      await stop();
    }
  }),
);

Deno.test(
  "front: an h2c or WebSocket Upgrade is answered in HTTP/1.1, each request tagged, on one connection",
  bounded(60_000, async (deadline) => {
    const { front, events, stop } = taggingFront();
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port: front.port });
      await c.write(enc.encode(
        "GET /h2c HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n" +
          "HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n",
      ));
      const h2c = await deadline.within("the h2c answer", readUntil(c, "client=127.0.0.1"));
      assert.match(h2c, /^HTTP\/1.1 200 /);
      assert.match(h2c, /\/h2c client=127\.0\.0\.1$/);
      await c.write(enc.encode(WEBSOCKET_UPGRADE));
      const ws = await deadline.within("the WebSocket answer", readUntil(c, "client=127.0.0.1"));
      assert.match(ws, /^HTTP\/1.1 200 /);
      assert.match(ws, /\/ws client=127\.0\.0\.1$/);
      c.close();
      const curl = await deadline.within("curl", curlGet("--http2", front, "/curl"));
      assert.equal(new TextDecoder().decode(curl.stdout), "/curl client=127.0.0.1");
      assert.deepEqual(events, []);
    } finally {
      await stop();
    }
  }),
);

Deno.test(
  "front: a backend's 101 is not passed on: the connection is closed, not relayed as another protocol",
  bounded(60_000, async (deadline) => {
    // The app has no route that switches protocols; this backend does, as one added later might.
    const { front, events, stop } = taggingFront((req) =>
      req.headers.get("upgrade") === "websocket" ? Deno.upgradeWebSocket(req).response : undefined
    );
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port: front.port });
      await c.write(enc.encode(WEBSOCKET_UPGRADE));
      assert.equal(await deadline.within("the close", firstRead(c)), "");
      c.close();
      assert.deepEqual(events, ["dropped:protocol"]);
    } finally {
      await stop();
    }
  }),
);
