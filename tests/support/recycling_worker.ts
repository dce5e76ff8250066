/**
 * A query worker that answers every request and then says it must be recycled, as a real
 * worker does when a connection setting could not be put back (src/browse/settings.ts), and
 * exits. No SQL path is known to get a real worker there, so the pool's side is tested with it.
 */
import {
  encodeFrame,
  FRAME_BODY,
  FRAME_END,
  FRAME_JSON,
  FrameReader,
} from "../../src/browse/pool/protocol.ts";

const reader = new FrameReader(Deno.stdin.readable);
const write = (bytes: Uint8Array) => {
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
};
if (await reader.read()) {
  write(encodeFrame(FRAME_JSON, JSON.stringify({ ready: true })));
  if (await reader.read()) {
    write(
      encodeFrame(FRAME_JSON, JSON.stringify({ status: 200, contentType: "application/json" })),
    );
    write(encodeFrame(FRAME_BODY, JSON.stringify({ pid: Deno.pid })));
    write(
      encodeFrame(FRAME_END, JSON.stringify({ ok: true, rows: 0, durationMs: 0, recycle: true })),
    );
  }
}
