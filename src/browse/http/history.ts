import { type Clock, realClock } from "../../time/clock.ts";

/** One successful /query or /explain call. */
export interface HistoryEntry {
  query: string;
  timestamp: string;
  duration_ms: number;
  rows: number;
}

/**
 * The most bytes of JSON the history holds, all entries together: 500 queries of 100,000
 * characters made one answer of 300 MB (JSON writes a control character as six), built whole on
 * the server's event loop. Past this the oldest entries go, as they do past the count.
 */
export const HISTORY_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The last `limit` successful calls, oldest first, at most `maxBytes` of JSON in all. Each
 * entry is kept as its JSON bytes, encoded once when added: the answer is those pieces as they
 * are (never one string built for it), and what the history holds is exactly what it costs.
 */
export class History {
  #ring: Uint8Array[] = [];
  #bytes = 0;

  constructor(
    private limit = 500,
    private clock: Pick<Clock, "now"> = realClock,
    private maxBytes = HISTORY_BYTES,
  ) {}

  add(query: string, durationMs: number, rows: number): void {
    const entry: HistoryEntry = {
      query,
      timestamp: new Date(this.clock.now()).toISOString(),
      duration_ms: Math.round(durationMs * 1000) / 1000,
      rows,
    };
    const bytes = encoder.encode(JSON.stringify(entry));
    if (bytes.length > this.maxBytes) return;
    this.#ring.push(bytes);
    this.#bytes += bytes.length;
    // Shifting is cheap next to the encoding above, and the ring is at most `limit` long.
    while (this.#ring.length > this.limit || this.#bytes > this.maxBytes) {
      this.#bytes -= this.#ring.shift()!.length;
    }
  }

  /** Bytes of JSON held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The answer to GET /history: a JSON array, in pieces (the entries as they are kept). */
  pieces(): Uint8Array[] {
    const out: Uint8Array[] = [encoder.encode("[")];
    const comma = encoder.encode(",");
    this.#ring.forEach((e, i) => out.push(...(i === 0 ? [e] : [comma, e])));
    out.push(encoder.encode("]"));
    return out;
  }

  list(): HistoryEntry[] {
    return this.#ring.map((e) => JSON.parse(decoder.decode(e)) as HistoryEntry);
  }
}
