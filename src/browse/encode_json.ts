import type { ApiValue } from "./values.ts";

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
