/** A result value as the API sends it. */
export type ApiValue = number | string | null | { $base64: true; encoded: string };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/**
 * Converts a driver value: integers exact (numbers when safe, else decimal strings), BLOBs as
 * base64 objects, never `{}`.
 */
export function toApiValue(v: unknown): ApiValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString();
  if (typeof v === "number" || typeof v === "string") return v;
  if (v instanceof Uint8Array) return { $base64: true, encoded: base64(v) };
  if (v instanceof ArrayBuffer) return { $base64: true, encoded: base64(new Uint8Array(v)) };
  if (typeof v === "boolean") return v ? 1 : 0;
  return String(v);
}

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

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  '"': "&quot;",
  "'": "&apos;",
  "<": "&lt;",
  ">": "&gt;",
};

/**
 * Escapes text for XML. Characters XML 1.0 cannot carry at all (C0 controls but tab, LF, CR;
 * lone surrogates) become U+FFFD, so a download always parses.
 */
function xmlEscape(s: string): string {
  return s.replace(
    // deno-lint-ignore no-control-regex -- these are exactly the characters XML forbids
    /[&"'<>]|[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    (c) => XML_ESCAPES[c] ?? "\uFFFD",
  );
}

/**
 * The XML document is `<result><columns>…</columns><row>…</row>…</result>`, one row a chunk.
 * Written by hand, not with the `xml` package: each of its calls queues a process.nextTick
 * holding its output, and the worker renders every row in one synchronous loop, so an export
 * kept all its rows in memory until the query ended (+3.7 GB for a 504 MB XML download).
 */
export function xmlHead(columns: string[]): string {
  const cols = columns.map((name) => `<column>${xmlEscape(name)}</column>`).join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<result><columns>${cols}</columns>\n`;
}

export function xmlRow(columns: string[], values: ApiValue[]): string {
  let out = "<row>";
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const column = `column="${xmlEscape(columns[i] ?? "")}"`;
    if (v === null) out += `<value ${column} null="true"></value>`;
    else if (typeof v === "object") {
      out += `<value ${column} encoding="base64">${xmlEscape(v.encoded)}</value>`;
    } else out += `<value ${column}>${xmlEscape(String(v))}</value>`;
  }
  return out + "</row>\n";
}

export const XML_TAIL = "</result>\n";
