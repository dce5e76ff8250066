import type { FeedType } from "../model/feed_type.ts";
import { redactUrl } from "../secrets/secret.ts";
import type { Entry } from "../model/entry.ts";
import { FeedError } from "./errors.ts";
import { fetchFeedUrl, type FetchOptions, type FetchResult, type Validators } from "./fetch.ts";
import { orderEntries } from "./merge.ts";
import { type FeedFormat, typeMismatch } from "./format.ts";
import type { ParsedFeed } from "./parse.ts";

/** What every URL of the feed is fetched with (see FetchOptions), and the feed's own. */
export interface ReadOptions extends Omit<FetchOptions, "validators" | "timeoutMs" | "maxBytes"> {
  /** One or more absolute URLs of one feed. */
  urls: string[];
  /** A hint; a mismatch with the detected format is a warning. */
  type: FeedType;
  /** Stored per URL from the last successful run. */
  validators?: ReadonlyMap<string, Validators>;
  /** Default 30000, the whole request including the body. */
  timeoutMs?: number;
  /** Default 20 MiB, after decompression. */
  maxBytes?: number;
}

export interface FeedRead {
  /**
   * All URLs merged, deduplicated by id (and by link across URLs, for entries without an id of
   * their own), in send order (see orderEntries).
   */
  entries: Entry[];
  warnings: string[];
  /** What to store for each URL after the run succeeds. */
  validators: Map<string, Validators>;
  /**
   * URLs not parsed because nothing changed (304 or the same body): all of the feed's URLs or
   * none of them.
   */
  notModified: string[];
  title: string | null;
  format: FeedFormat | null;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

/**
 * The parser, loaded when a body first needs parsing: a steady-state run parses nothing, and
 * the parser with htmlparser2 is a noticeable part of a process's start-up.
 */
let parser: Promise<typeof import("./parse.ts")> | undefined;

/** Parses a fetched body, naming the configured URL (and where it ended up) on failure. */
function parseAt(
  parseFeed: typeof import("./parse.ts").parseFeed,
  url: string,
  finalUrl: string,
  body: Uint8Array,
  contentType: string | null,
) {
  try {
    return parseFeed(body, finalUrl, contentType);
  } catch (error) {
    if (error instanceof FeedError) {
      const where = finalUrl === url ? "" : ` (at ${redactUrl(finalUrl)})`;
      throw new FeedError(url, `${error.reason}${where}`);
    }
    throw error;
  }
}

/**
 * Whether a fetched URL holds nothing the last successful read did not: a 304, or a body that
 * hashes like the one read then.
 */
function unchanged(fetched: FetchResult, previous: Validators | undefined): boolean {
  if (fetched.kind === "notModified") return true;
  const hash = fetched.validators.bodyHash;
  return hash !== null && hash === previous?.bodyHash;
}

/**
 * Fetches every URL of one feed concurrently, parses each, and merges the entries into send
 * order. Throws FeedError (naming the URL) if any URL fails: a feed run is all or nothing, so
 * validators are only stored when every URL was read.
 *
 * When every URL is unchanged since the last successful read (304, or the same body), nothing
 * is parsed and no entries come back: all of them were dealt with by that run. When only some
 * are, all are parsed all the same (a 304 one fetched again without validators), because the
 * merge drops an entry whose link another URL already had, and that entry was never recorded:
 * parsing the changed URLs alone would bring it back as new.
 */
export async function readFeed(options: ReadOptions): Promise<FeedRead> {
  const fetchOne = (url: string, validators: Validators | undefined) =>
    fetchFeedUrl(url, {
      ...options,
      validators,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    });
  const fetched = await Promise.all(
    options.urls.map((url) => fetchOne(url, options.validators?.get(url))),
  );
  const validators = new Map<string, Validators>();
  options.urls.forEach((url, i) => validators.set(url, fetched[i].validators));
  if (options.urls.every((url, i) => unchanged(fetched[i], options.validators?.get(url)))) {
    const notModified = [...options.urls];
    return { entries: [], warnings: [], validators, notModified, title: null, format: null };
  }
  const bodies = await Promise.all(options.urls.map(async (url, i) => {
    const result = fetched[i];
    if (result.kind === "ok") return result;
    const again = await fetchOne(url, undefined);
    if (again.kind !== "ok") throw new FeedError(url, "HTTP 304 to a request without validators");
    validators.set(url, again.validators);
    return again;
  }));

  const { parseFeed } = await (parser ??= import("./parse.ts"));
  const warnings: string[] = [];
  const lists: Entry[][] = [];
  let title: string | null = null;
  let format: FeedFormat | null = null;
  const label = (url: string) => (options.urls.length > 1 ? `${redactUrl(url)}: ` : "");
  options.urls.forEach((url, i) => {
    const { finalUrl, body, contentType } = bodies[i];
    const parsed: ParsedFeed = parseAt(parseFeed, url, finalUrl, body, contentType);
    title ??= parsed.title;
    format ??= parsed.format;
    const mismatch = typeMismatch(parsed.format, options.type);
    for (const w of mismatch ? [...parsed.warnings, mismatch] : parsed.warnings) {
      warnings.push(`${label(url)}${w}`);
    }
    lists.push(parsed.entries);
  });
  return { entries: orderEntries(lists), warnings, validators, notModified: [], title, format };
}
