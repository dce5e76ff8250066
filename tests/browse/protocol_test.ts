import assert from "node:assert/strict";
import {
  encodeFrame,
  FRAME_BODY,
  FRAME_JSON,
  FrameReader,
  FrameTooLargeError,
  SyncFrameReader,
} from "../../src/browse/pool/protocol.ts";

/** A file whose reads hand out `bytes` at most `step` at a time. */
function dribble(bytes: Uint8Array, step: number) {
  let at = 0;
  return {
    readSync(p: Uint8Array): number | null {
      if (at >= bytes.length) return null;
      const n = Math.min(step, p.length, bytes.length - at);
      p.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
}

Deno.test("SyncFrameReader: frames split across reads, larger than its buffer, then the end", () => {
  const big = new Uint8Array(200_000).map((_, i) => i % 251);
  const input = concat([
    encodeFrame(FRAME_JSON, '{"op":"info"}'),
    encodeFrame(FRAME_BODY, big),
    encodeFrame(FRAME_JSON, "é"),
  ]);
  for (const step of [1, 7, 65_536, input.length]) {
    const r = new SyncFrameReader(dribble(input, step));
    const a = r.read()!;
    assert.equal(a.kind, FRAME_JSON);
    assert.equal(new TextDecoder().decode(a.payload), '{"op":"info"}');
    const b = r.read()!;
    assert.equal(b.kind, FRAME_BODY);
    assert.deepEqual(b.payload, big, `step ${step}`);
    assert.equal(new TextDecoder().decode(r.read()!.payload), "é");
    assert.equal(r.read(), null);
    assert.equal(r.buffered, 0);
  }
});

Deno.test("SyncFrameReader: input that ends inside a frame reads as the end", () => {
  const frame = encodeFrame(FRAME_JSON, '{"op":"tables"}');
  const r = new SyncFrameReader(dribble(frame.subarray(0, frame.length - 3), 4));
  assert.equal(r.read(), null);
});

/** A byte stream that hands out `bytes` `step` at a time. */
function byteStream(bytes: Uint8Array, step: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        // A read waiting with its own buffer is answered "done" only this way.
        return controller.byobRequest?.respond(0);
      }
      controller.enqueue(bytes.slice(at, at += step));
    },
  });
}

Deno.test("FrameReader: frames across reads and past its buffer's end, one larger than the buffer, then the end", async () => {
  // 1,000 frames of 1,000 bytes run past the 256 KiB buffer several times, each time with a
  // frame cut at its end; then one frame larger than the whole buffer.
  const small = Array.from({ length: 1000 }, (_, i) => new Uint8Array(1000).fill(i % 256));
  const big = new Uint8Array(300_000).map((_, i) => i % 251);
  const input = concat([
    ...small.map((p) => encodeFrame(FRAME_BODY, p)),
    encodeFrame(FRAME_BODY, big),
    encodeFrame(FRAME_JSON, "é"),
  ]);
  for (const step of [7, 65_536, input.length]) {
    const r = new FrameReader(byteStream(input, step));
    for (const p of small) assert.deepEqual((await r.read())!.payload, p, `step ${step}`);
    assert.deepEqual((await r.read())!.payload, big, `step ${step}`);
    assert.equal(new TextDecoder().decode((await r.read())!.payload), "é");
    assert.equal(await r.read(), null);
  }
  const capped = new FrameReader(byteStream(input, 65_536), 999);
  await assert.rejects(capped.read(), FrameTooLargeError);
});
