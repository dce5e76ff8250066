import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { FeedType } from "../config/types.ts";
import {
  type Entry,
  FeedError,
  type FeedFormat,
  formatRfc3339,
  orderEntries,
  parseFeed,
  readFeed,
  typeMismatch,
} from "../feeds/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { UsageError, UserError } from "./errors.ts";

interface Preview {
  format: FeedFormat | null;
  title: string | null;
  entries: Entry[];
  warnings: string[];
}

async function previewUrl(url: string, type: FeedType | undefined): Promise<Preview> {
  const read = await readFeed({ urls: [url], type: type ?? "rss" });
  // Without --type there is no hint to disagree with.
  const unwanted = type === undefined && read.format ? typeMismatch(read.format, "rss") : null;
  return { ...read, warnings: read.warnings.filter((w) => w !== unwanted) };
}

async function previewFile(path: string, type: FeedType | undefined): Promise<Preview> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : (error as Error).message.split("\n")[0];
    throw new UserError(`courier preview: ${path}: ${reason}`, 1);
  }
  try {
    const parsed = parseFeed(bytes, pathToFileURL(resolve(path)).href);
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

function renderText(preview: Preview): string {
  const count = `${preview.entries.length} entr${preview.entries.length === 1 ? "y" : "ies"}`;
  const lines = [`${preview.title ?? "(untitled feed)"} (${preview.format}, ${count})`];
  preview.entries.forEach((entry, i) => {
    lines.push(
      "",
      `${i + 1}. ${entry.title || "(untitled)"}`,
      `   link: ${entry.link ?? "(none)"}`,
      `   date: ${entry.published ? formatRfc3339(entry.published) : "(none)"}`,
      `   id:   ${entry.id}`,
    );
  });
  return lines.join("\n");
}

function renderJson(preview: Preview): string {
  return JSON.stringify(
    {
      format: preview.format,
      title: preview.title,
      entries: preview.entries.map((e) => ({
        id: e.id,
        link: e.link,
        title: e.title,
        published: e.published ? formatRfc3339(e.published) : null,
      })),
    },
    null,
    2,
  );
}

/** `courier preview`: loaded by previewCommand.run only when the command runs. */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("preview", argv, {
    type: { type: "string" },
    json: { type: "boolean" },
  }, true);
  if (positionals.length !== 1) {
    throw new UsageError(
      "courier preview: expected one URL or FILE (see 'courier preview --help')",
    );
  }
  const type = values.type;
  if (type !== undefined && type !== "rss" && type !== "atom") {
    throw new UsageError(`courier preview: --type must be "rss" or "atom", got "${type}"`);
  }
  const source = positionals[0];
  let preview: Preview;
  try {
    preview = /^https?:\/\//i.test(source)
      ? await previewUrl(source, type)
      : await previewFile(source, type);
  } catch (error) {
    if (error instanceof FeedError) throw new UserError(`courier preview: ${error.message}`, 1);
    throw error;
  }
  for (const warning of preview.warnings) console.error(`warning: ${warning}`);
  console.log(values.json ? renderJson(preview) : renderText(preview));
  return 0;
}
