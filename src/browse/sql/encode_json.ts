import { MAX_SAFE, toApiValue } from "./values.ts";

/**
 * A JSON answer stops taking rows before its text passes this many characters, and says
 * `"truncated": true`: the row cap alone does not bound bytes (1,000 rows of 1 MB cells).
 * A UTF-16 unit is at most 3 bytes of UTF-8, so the answer stays under the pool's 32 MiB
 * MAX_ANSWER_BYTES (src/browse/pool.ts), past which it would be refused instead of truncated.
 */
export const MAX_JSON_ANSWER_CHARS = 10 * 1024 * 1024;

/** `{"columns":[...],"rows":[` — the answer is written in pieces, rows as they come. */
export function jsonHead(columns: string[]): string {
  return `{"columns":${JSON.stringify(columns)},"rows":[`;
}

export function jsonTail(stats: Record<string, unknown>, truncated: boolean): string {
  return `],"stats":${JSON.stringify(stats)},"truncated":${truncated}}`;
}

/**
 * One row of driver values as JSON, converted as toApiValue does (integers exact, BLOBs as
 * base64 objects) but without an array of converted values per row: this runs for every row of
 * every answer. A row of text, numbers and NULLs alone is what JSON.stringify writes, natively
 * and faster (bench/NOTES.md; a number that is not finite is null in both).
 */
export function jsonRowOf(row: readonly unknown[]): string {
  return isPlain(row) ? JSON.stringify(row) : mixedRow(row);
}

/** Whether JSON.stringify writes `row` as jsonRowOf must: text, numbers and NULLs only. */
function isPlain(row: readonly unknown[]): boolean {
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (typeof v !== "string" && typeof v !== "number" && v !== null) return false;
  }
  return true;
}

/**
 * Rows as jsonRowOf writes them, joined by commas, in one JSON.stringify call (faster than one
 * per row); null when one of them is not plain, or when the text could pass
 * `maxChars`: bounded before it is built (a string's JSON is at most 6 characters a character
 * and 2 more, a number's 24), so a page of large values is never made into one huge string.
 */
export function jsonRowsOf(rows: readonly (readonly unknown[])[], maxChars: number): string | null {
  let bound = 2;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    bound += row.length + 2;
    for (let j = 0; j < row.length; j++) {
      const v = row[j];
      if (typeof v === "string") bound += 6 * v.length + 2;
      else if (typeof v === "number" || v === null) bound += 24;
      else return null;
    }
    if (bound > maxChars) return null;
  }
  return JSON.stringify(rows).slice(1, -1);
}

function mixedRow(row: readonly unknown[]): string {
  let s = "[";
  for (let i = 0; i < row.length; i++) {
    if (i > 0) s += ",";
    const v = row[i];
    if (typeof v === "string") s += JSON.stringify(v);
    else if (typeof v === "bigint") s += v <= MAX_SAFE && v >= -MAX_SAFE ? String(v) : `"${v}"`;
    // String(n) is JSON's spelling of a finite number (-0 included); others are null in JSON.
    else if (typeof v === "number") s += Number.isFinite(v) ? String(v) : "null";
    else s += JSON.stringify(toApiValue(v));
  }
  return s + "]";
}

const encoder = new TextEncoder();
/** Text is encoded in pieces of about this many characters: one call per row cost more. */
const PIECE = 16 * 1024;
/** A buffer larger than this is not kept for the next answer. */
const KEEP_BYTES = 1024 * 1024;
let spare: Uint8Array<ArrayBuffer> | null = null;

/**
 * A JSON answer's body built as UTF-8 while its rows are read. Rows kept as strings until the
 * end outlived V8's young generation and were copied by every scavenge; bytes are not. One
 * buffer is reused from answer to answer (a worker builds one at a time).
 */
export class JsonBody {
  #buf: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  #len = 0;
  #text = "";

  add(text: string): void {
    this.#text += text;
    if (this.#text.length >= PIECE) this.#encode();
  }

  #encode(): void {
    const need = this.#len + this.#text.length * 3;
    if (this.#buf.length === 0) {
      this.#buf = spare ?? new Uint8Array(256 * 1024);
      spare = null;
    }
    if (need > this.#buf.length) {
      const next = new Uint8Array(Math.max(need, this.#buf.length * 2));
      next.set(this.#buf.subarray(0, this.#len));
      this.#buf = next;
    }
    this.#len += encoder.encodeInto(this.#text, this.#buf.subarray(this.#len)).written;
    this.#text = "";
  }

  /** The body so far; valid until release(). */
  bytes(): Uint8Array {
    this.#encode();
    return this.#buf.subarray(0, this.#len);
  }

  /** Gives the buffer back for the next answer. */
  release(): void {
    if (this.#buf.length <= KEEP_BYTES) spare = this.#buf;
  }
}
