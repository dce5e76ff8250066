import assert from "node:assert/strict";
import {
  encodeFrame,
  FRAME_BODY,
  FRAME_JSON,
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
