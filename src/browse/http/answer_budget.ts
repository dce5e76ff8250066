/**
 * Answers held in the server's memory until their clients take them, under one budget. A
 * JSON answer is read whole from its worker (so a slow client never holds a worker), and the
 * server then holds it until the client has read it: clients that asked for large answers and
 * never read them grew the server by the size of each, kept after they left (bench/NOTES.md).
 * A large answer now counts against the budget from the moment it is handed to the
 * client until its last byte is taken, its client goes, or the client takes nothing for the
 * stall limit; one that would pass the budget is refused with 503 instead of held. Small
 * answers are not counted: the connection cap bounds them.
 */
import { Buffer } from "node:buffer";

/**
 * Answers up to this size are sent as they are, uncounted: a stream costs a page of 1,000 rows
 * a noticeable part of its throughput, and the connection cap bounds what such answers can
 * hold (320 connections under the common descriptor limit: 80 MiB).
 */
export const SMALL_ANSWER_BYTES = 256 * 1024;
/**
 * Handed to the HTTP server in pieces of this size: it takes pieces while its own buffer has
 * room, so the bytes still count until the last is taken. One whole piece would be taken at
 * once and counted as sent (held by a test of 40 stalled clients); small pieces slow a large
 * page down.
 */
const CHUNK = 256 * 1024;

export class AnswerBudget {
  #used = 0;

  /**
   * @param limit the most bytes of large answers held at once
   * @param stallMs how long a client may take nothing before its answer is dropped
   */
  constructor(readonly limit: number, readonly stallMs: number) {}

  /** Bytes of large answers held now. */
  get used(): number {
    return this.#used;
  }

  /**
   * The body to send an answer with, given whole or in pieces (sent one after another): the
   * bytes themselves when small, a stream that holds them against the budget when large, or
   * null when the budget has no room for them.
   */
  body(answer: Uint8Array | readonly Uint8Array[]): Uint8Array | ReadableStream<Uint8Array> | null {
    const pieces = answer instanceof Uint8Array ? [answer] : answer;
    let size = 0;
    for (const p of pieces) size += p.length;
    if (size <= SMALL_ANSWER_BYTES) return Buffer.concat(pieces, size);
    if (this.#used + size > this.limit) return null;
    this.#used += size;
    let held: readonly Uint8Array[] | null = pieces;
    let piece = 0;
    let off = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const release = () => {
      clearTimeout(timer);
      if (held === null) return;
      held = null;
      this.#used -= size;
    };
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        clearTimeout(timer);
        if (held === null) return;
        while (piece < held.length && off >= held[piece].length) {
          piece++;
          off = 0;
        }
        if (piece >= held.length) {
          release();
          controller.close();
          return;
        }
        const p = held[piece];
        const end = Math.min(p.length, off + CHUNK);
        // A copy, not a view: the HTTP server keeps the last piece it was handed while its
        // client takes nothing, and a view kept the whole answer in memory after the stall
        // limit gave its bytes back to the budget (40 stalled clients past that limit grew the
        // server by each dropped answer).
        controller.enqueue(p.slice(off, end));
        off = end;
        timer = setTimeout(() => {
          release();
          controller.error(new Error("the client stopped reading its answer"));
        }, this.stallMs);
      },
      cancel: release,
    }, { highWaterMark: 0 });
  }
}
