import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { FeedSettings, FeedType } from "../config/types.ts";
// The parser's own modules: a file needs no fetching, and feeds/read.ts brings the HTTP stack
// with it (see preview_url.ts).
import { formatRfc3339 } from "../feeds/dates.ts";
import type { Entry } from "../feeds/entry.ts";
import { FeedError } from "../feeds/errors.ts";
import { type FeedFormat, typeMismatch } from "../feeds/format.ts";
import { orderEntries } from "../feeds/merge.ts";
import { type ParsedFeed, parseFeed } from "../feeds/parse.ts";
import { fileReadProblem } from "../log/file_error.ts";
import { parseCommandArgs } from "./args.ts";
import { UsageError, UserError } from "./errors.ts";

export interface Preview {
  format: FeedFormat | null;
  title: string | null;
  entries: Entry[];
  warnings: string[];
}

function readFileBytes(path: string): Uint8Array {
  try {
    return readWhole(path);
  } catch (error) {
    throw new UserError(`courier preview: ${path}: ${fileReadProblem(error)}`, 1);
  }
}

/**
 * The file's bytes, read with one call into a buffer of its size: Deno.readFile reads into a
 * buffer of its own and copies that, doubling the time for a large feed. Anything
 * but a regular file, or one that grows while read, is left to Deno.readFileSync.
 */
function readWhole(path: string): Uint8Array {
  const file = Deno.openSync(path);
  try {
    const info = file.statSync();
    if (!info.isFile || info.size === 0) return Deno.readFileSync(path);
    const bytes = new Uint8Array(info.size);
    let length = 0;
    while (length < bytes.length) {
      const read = file.readSync(bytes.subarray(length));
      if (read === null) return bytes.subarray(0, length); // it shrank
      length += read;
    }
    return file.readSync(new Uint8Array(1)) === null ? bytes : Deno.readFileSync(path);
  } finally {
    file.close();
  }
}

/** The file: URL of a local path, against the working directory. */
export function fileUrlOf(path: string): string {
  return pathToFileURL(resolve(path)).href;
}

/** Parses the file; summaries are shown only through a feed's filter and template. */
function parseFile(path: string, url: string, summaries: boolean): ParsedFeed {
  // The bytes go straight to the parser, which drops them once decoded.
  return parseFeed(readFileBytes(path), url, null, { summaries });
}

function previewFile(
  path: string,
  type: FeedType | undefined,
  summaries = false,
): Preview {
  const url = fileUrlOf(path);
  try {
    const parsed = parseFile(path, url, summaries);
    const mismatch = type ? typeMismatch(parsed.format, type) : null;
    return {
      format: parsed.format,
      title: parsed.title,
      entries: orderEntries([parsed.entries]),
      warnings: mismatch ? [...parsed.warnings, mismatch] : parsed.warnings,
    };
  } catch (error) {
    if (error instanceof FeedError) throw new FeedError(path, error.reason);
    throw error;
  }
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

function renderText(preview: Preview): string {
  const lines = [headline(preview)];
  preview.entries.forEach((entry, i) => lines.push(...entryLines(entry, i)));
  return lines.join("\n");
}

/**
 * Writes `{"format", "title", "entries"}` as JSON.stringify(value, null, 2) would, one entry at
 * a time in chunks, so a large feed's output is never one string (nor its bytes) in memory.
 */
function writeJson(preview: Preview): void {
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

/** `courier preview`: loaded by previewCommand.run only when the command runs. */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("preview", argv, {
    type: { type: "string" },
    json: { type: "boolean" },
    proxy: { type: "string" },
    config: { type: "string", short: "c" },
    feed: { type: "string" },
  }, true);
  if (positionals.length !== 1) {
    throw new UsageError(
      "courier preview: expected one URL or FILE (see 'courier preview --help')",
    );
  }
  if (values.type !== undefined && values.type !== "rss" && values.type !== "atom") {
    throw new UsageError(`courier preview: --type must be "rss" or "atom", got "${values.type}"`);
  }
  let type: FeedType | undefined = values.type;
  const source = positionals[0];
  const isUrl = /^https?:\/\//i.test(source);
  if (!isUrl && values.proxy !== undefined && values.proxy !== "") {
    throw new UsageError("courier preview: --proxy applies to a URL, not a FILE");
  }
  if (values.feed === undefined && values.config !== undefined) {
    throw new UsageError("courier preview: -c CONFIG goes with --feed NAME");
  }
  // A feed's view of the entries: its filter, template and delivery (loaded only for it).
  const withFeed = values.feed === undefined ? null : await import("./preview_feed.ts");
  let feed: FeedSettings | null = null;
  let proxy = values.proxy;
  if (withFeed !== null) {
    const { configPathFrom } = await import("../config/load.ts");
    feed = await withFeed.feedFromConfig(configPathFrom(values.config), values.feed!);
    type ??= feed.type;
    // The feed's own proxy, unless the command line names one.
    proxy ??= feed.proxy ?? "";
  }
  let preview: Preview;
  try {
    preview = isUrl
      ? await (await import("./preview_url.ts")).previewUrl(source, type, proxy)
      : previewFile(source, type, feed !== null);
  } catch (error) {
    if (error instanceof FeedError) throw new UserError(`courier preview: ${error.message}`, 1);
    throw error;
  }
  for (const warning of preview.warnings) console.error(`warning: ${warning}`);
  if (withFeed !== null && feed !== null) {
    console.log(
      values.json ? withFeed.renderFeedJson(preview, feed) : withFeed.renderFeedText(preview, feed),
    );
  } else if (values.json) writeJson(preview);
  else console.log(renderText(preview));
  return 0;
}
