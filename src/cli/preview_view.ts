/** What `courier preview` prints: a feed's headline and entries, as text or JSON. */
import type { FeedFormat } from "../feeds/format.ts";
import { formatRfc3339 } from "../time/rfc3339.ts";
import type { Entry } from "../model/entry.ts";

export interface Preview {
  format: FeedFormat | null;
  title: string | null;
  entries: Entry[];
  warnings: string[];
}

/** The first line: the feed's title, format and how many entries it has. */
export function headline(preview: Preview): string {
  const count = `${preview.entries.length} entr${preview.entries.length === 1 ? "y" : "ies"}`;
  return `${preview.title ?? "(untitled feed)"} (${preview.format}, ${count})`;
}

/** An entry's lines (after a blank one), numbered from 1 by `i`. */
export function entryLines(entry: Entry, i: number): string[] {
  return [
    "",
    `${i + 1}. ${entry.title || "(untitled)"}`,
    `   link: ${entry.link ?? "(none)"}`,
    `   date: ${entry.published ? formatRfc3339(entry.published) : "(none)"}`,
    `   id:   ${entry.id}`,
  ];
}

export function renderText(preview: Preview): string {
  const lines = [headline(preview)];
  preview.entries.forEach((entry, i) => lines.push(...entryLines(entry, i)));
  return lines.join("\n");
}

/**
 * Writes `{"format", "title", "entries"}` as JSON.stringify(value, null, 2) would, one entry at
 * a time in chunks, so a large feed's output is never one string (nor its bytes) in memory.
 */
export function writeJson(preview: Preview): void {
  const encoder = new TextEncoder();
  // Pieces joined once per chunk: appending to one string built a tree of joins that encoding
  // then had to flatten, twice the time.
  let parts = [
    `{\n  "format": ${JSON.stringify(preview.format)},\n  "title": ${
      JSON.stringify(preview.title)
    }`,
    ',\n  "entries": [',
  ];
  let size = 0;
  const flush = () => {
    const bytes = encoder.encode(parts.join(""));
    for (let written = 0; written < bytes.length;) {
      written += Deno.stdout.writeSync(bytes.subarray(written));
    }
    parts = [];
    size = 0;
  };
  preview.entries.forEach((e, i) => {
    const id = JSON.stringify(e.id);
    const link = JSON.stringify(e.link);
    const title = JSON.stringify(e.title);
    // A date's text has nothing to escape.
    const published = e.published ? `"${formatRfc3339(e.published)}"` : "null";
    parts.push(
      i === 0 ? '\n    {\n      "id": ' : ',\n    {\n      "id": ',
      id,
      ',\n      "link": ',
      link,
      ',\n      "title": ',
      title,
      ',\n      "published": ',
      published,
      "\n    }",
    );
    size += id.length + link.length + title.length + published.length;
    if (size >= 65536) flush();
  });
  parts.push(preview.entries.length ? "\n  ]\n}\n" : "]\n}\n");
  flush();
}
