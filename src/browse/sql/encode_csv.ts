import type { ApiValue } from "./values.ts";

function cellText(v: ApiValue): string {
  if (v === null) return "";
  if (typeof v === "object") return v.encoded;
  return String(v);
}

/**
 * The characters for which SQLite's own shell (`sqlite3 -csv`) quotes a field: controls, space,
 * `"`, `'`, `,`, DEL and everything past ASCII;
 * a field of the other printable ASCII characters goes bare. Quoting as it does makes a download compare byte
 * for byte with the shell's, and keeps a field's edges and an empty string (`""`, unlike NULL's
 * nothing) through readers that trim or drop them.
 */
const PLAIN = /^[!#-&(-+\--~]+$/;

/** One CSV record (RFC 4180), CRLF-terminated: a row, or the column names. */
export function csvLine(values: ApiValue[]): string {
  return values.map((v) => {
    const s = cellText(v);
    return v !== null && !PLAIN.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  }).join(",") + "\r\n";
}
