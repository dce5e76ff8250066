import { type ApiValue, MAX_SAFE, toApiValue } from "./values.ts";

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

export function jsonRow(values: ApiValue[], first: boolean): string {
  return (first ? "" : ",") + JSON.stringify(values);
}

export function jsonTail(stats: Record<string, unknown>, truncated: boolean): string {
  return `],"stats":${JSON.stringify(stats)},"truncated":${truncated}}`;
}

/**
 * One row of driver values as JSON, converted as toApiValue does (integers exact, BLOBs as
 * base64 objects) but without an array of converted values per row: this runs for every row of
 * every answer.
 */
export function jsonRowOf(row: readonly unknown[]): string {
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

/**
 * A JSON answer's body built as UTF-8 while its rows are read. Rows kept as strings until the
 * end outlived V8's young generation and were copied by every scavenge; bytes are not.
 */
export class JsonBody {
  #buf = new Uint8Array(64 * 1024);
  #len = 0;

  add(text: string): void {
    const need = this.#len + text.length * 3;
    if (need > this.#buf.length) {
      const next = new Uint8Array(Math.max(need, this.#buf.length * 2));
      next.set(this.#buf.subarray(0, this.#len));
      this.#buf = next;
    }
    this.#len += encoder.encodeInto(text, this.#buf.subarray(this.#len)).written;
  }

  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#len);
  }
}
