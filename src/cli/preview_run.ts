import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { FeedSettings } from "../config/types.ts";
import type { FeedType } from "../model/feed_type.ts";
// The parser's own modules: a file needs no fetching, and feeds/read.ts brings the HTTP stack
// with it (see preview_url.ts).
import { FeedError } from "../feeds/errors.ts";
import { typeMismatch } from "../feeds/format.ts";
import { orderEntries } from "../feeds/merge.ts";
import { type ParsedFeed, parseFeed } from "../feeds/parse.ts";
import { fileReadProblem } from "../log/file_error.ts";
import { parseCommandArgs } from "./args.ts";
import { type Preview, renderText, writeJson } from "./preview_view.ts";
import { UsageError, UserError } from "./errors.ts";

function readFileBytes(path: string): Uint8Array {
  try {
    return Deno.readFileSync(path);
  } catch (error) {
    throw new UserError(`courier preview: ${path}: ${fileReadProblem(error)}`, 1);
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
