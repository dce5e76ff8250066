import assert from "node:assert/strict";
import { brotliCompressSync, constants } from "node:zlib";

const MiB = 1024 * 1024;
/** What each bomb expands to: far past the cap, and past the bound if inflated whole. */
const EXPANDED = 512 * MiB;
const CAP = 32 * MiB;
/**
 * Generous: the read needs the cap, a few MiB of decoder state and the garbage of fetch's own
 * 64 KiB chunk buffers (measured: 105-140 MiB at this cap for gzip and br, 43 for deflate).
 * Inflating whole (over 1 GiB) or keeping fetch's 4 KiB chunks as views of their 64 KiB buffers
 * (about 390 MiB) does not fit.
 */
const BOUND = 260 * MiB;

/** EXPANDED zero bytes compressed, fed in 1 MiB pieces so building it stays small. */
async function bomb(format: CompressionFormat): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new CompressionStream(format);
  const writer = stream.writable.getWriter();
  const zeros = new Uint8Array(MiB);
  const writing = (async () => {
    for (let i = 0; i < EXPANDED / MiB; i++) await writer.write(zeros);
    await writer.close();
  })();
  const packed = new Uint8Array(await new Response(stream.readable).arrayBuffer());
  await writing;
  return packed;
}

const bombs: Record<string, { encoding: string; body: Uint8Array<ArrayBuffer> }> = {
  "deflate (zlib)": { encoding: "deflate", body: await bomb("deflate") },
  "deflate (raw)": { encoding: "deflate", body: await bomb("deflate-raw") },
  "gzip": { encoding: "gzip", body: await bomb("gzip") },
  "br": {
    encoding: "br",
    body: new Uint8Array(
      brotliCompressSync(new Uint8Array(EXPANDED), {
        params: { [constants.BROTLI_PARAM_QUALITY]: 1 },
      }),
    ),
  },
};

const CHILD = new URL("./fetch_bomb_child.ts", import.meta.url).pathname;

for (const [name, { encoding, body }] of Object.entries(bombs)) {
  Deno.test(`fetchFeedUrl: a ${name} bomb stops at the cap, memory bounded`, async () => {
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      () =>
        new Response(body, {
          headers: { "content-encoding": encoding, "content-type": "application/rss+xml" },
        }),
    );
    try {
      const url = `http://127.0.0.1:${server.addr.port}/bomb.xml`;
      // A process of its own, so the peak RSS is this read's and not other test files'.
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", CHILD, url, String(CAP)],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      assert.equal(out.code, 0);
      const { error, growth } = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.equal(error, `${url}: response body larger than the cap of ${CAP} bytes`);
      assert.ok(growth < BOUND, `peak RSS grew ${Math.round(growth / MiB)} MiB reading the bomb`);
    } finally {
      await server.shutdown();
    }
  });
}
