import type { FeedType } from "../config/types.ts";
import type { Entry } from "../feeds/entry.ts";

/**
 * The feed reader as delivery sees it: the contract of `readFeed` in src/feeds/mod.ts, restated
 * structurally so a feed run can be driven by a stub in tests.
 */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
  /** Hash of the body last read; an identical body is reported unchanged, like a 304. */
  bodyHash: string | null;
}

export interface ReadOptions {
  urls: string[];
  type: FeedType;
  validators?: Map<string, Validators>;
  client?: Deno.HttpClient;
  timeoutMs?: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface FeedRead {
  /** Merged, deduplicated by id and link, oldest first. */
  entries: Entry[];
  warnings: string[];
  /** To store once the run succeeded. */
  validators: Map<string, Validators>;
  /** URLs not parsed because nothing changed there since the last successful run. */
  notModified: string[];
  title: string | null;
  format: string | null;
}

/** Reads one feed (all its URLs); throws an error naming the URL when any fails. */
export type FeedReader = (options: ReadOptions) => Promise<FeedRead>;
