import type { ApiValue } from "./values.ts";

function cellText(v: ApiValue): string {
  if (v === null) return "";
  if (typeof v === "object") return v.encoded;
  return String(v);
}

/** One CSV record (RFC 4180), CRLF-terminated. */
export function csvLine(values: ApiValue[]): string {
  return values.map((v) => {
    const s = cellText(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  }).join(",") + "\r\n";
}

export function csvHeader(columns: string[]): string {
  return csvLine(columns);
}
