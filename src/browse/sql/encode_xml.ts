import type { ApiValue } from "./values.ts";

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
 * kept all its rows in memory until the query ended (bench/NOTES.md).
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
