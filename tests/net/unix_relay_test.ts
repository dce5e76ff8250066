import assert from "node:assert/strict";
import { startUnixRelay } from "../../src/net/unix_relay.ts";

/** A unix-socket echo server in a temp dir. */
async function startEcho(): Promise<{ path: string; stop(): Promise<void> }> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/echo.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const handlers: Promise<unknown>[] = [];
  const loop = (async () => {
    for await (const conn of listener) {
      handlers.push(conn.readable.pipeTo(conn.writable).catch(() => {}));
    }
  })();
  return {
    path,
    async stop() {
      listener.close();
      await loop.catch(() => {});
      await Promise.allSettled(handlers);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function readAll(conn: Deno.Conn): Promise<Uint8Array> {
  return new Uint8Array(await new Response(conn.readable).arrayBuffer());
}

Deno.test("unix relay: bytes go both ways, intact, over concurrent connections", async () => {
  const echo = await startEcho();
  const relay = startUnixRelay(echo.path);
  try {
    const payloads = [1, 2, 3].map((n) => {
      const data = new Uint8Array(300_000 * n);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7 + n) & 0xff;
      return data;
    });
    const results = await Promise.all(payloads.map(async (data) => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: relay.port });
      const [, back] = await Promise.all([
        (async () => {
          const w = conn.writable.getWriter();
          await w.write(data);
          w.releaseLock();
          await conn.closeWrite();
        })(),
        readAll(conn),
      ]);
      return back;
    }));
    results.forEach((back, i) => assert.deepEqual(back, payloads[i]));
  } finally {
    await relay.stop();
    await echo.stop();
  }
});

Deno.test("unix relay: stop() closes the listener and open connections", async () => {
  const echo = await startEcho();
  const relay = startUnixRelay(echo.path);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: relay.port });
  try {
    await conn.write(new TextEncoder().encode("ping"));
    const buf = new Uint8Array(4);
    assert.equal(await conn.read(buf), 4);
    assert.equal(new TextDecoder().decode(buf), "ping");
    await relay.stop();
    // The relay side is closed: the client reads end-of-stream (or a reset).
    const after = await conn.read(buf).catch(() => null);
    assert.equal(after, null);
    await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port: relay.port }));
  } finally {
    conn.close();
    await relay.stop();
    await echo.stop();
  }
});

Deno.test("unix relay: a missing socket closes the connection; later ones work", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/late.sock`;
  const relay = startUnixRelay(path);
  let listener: Deno.UnixListener | undefined;
  try {
    const early = await Deno.connect({ hostname: "127.0.0.1", port: relay.port });
    assert.equal(await early.read(new Uint8Array(8)).catch(() => null), null);
    early.close();

    listener = Deno.listen({ transport: "unix", path });
    const accepted = listener.accept();
    const late = await Deno.connect({ hostname: "127.0.0.1", port: relay.port });
    const server = await accepted;
    await server.write(new TextEncoder().encode("hi"));
    const buf = new Uint8Array(2);
    assert.equal(await late.read(buf), 2);
    assert.equal(new TextDecoder().decode(buf), "hi");
    server.close();
    late.close();
  } finally {
    await relay.stop();
    listener?.close();
    await Deno.remove(dir, { recursive: true });
  }
});
