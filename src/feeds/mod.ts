/**
 * Feed reading: fetch, lenient parsing, entry identity, merging. The API the rest of courier
 * uses; everything else in src/feeds is an implementation detail.
 */
export type { Entry } from "./entry.ts";
export { FeedError } from "./errors.ts";
export type { Validators } from "./fetch.ts";
export { processDeadlines, USER_AGENT } from "./fetch.ts";
export { Deadlines } from "../log/deadlines.ts";
export { orderEntries } from "./merge.ts";
export { MAX_PAUSE_MS, parseRetryAfter, processPauses, ServerPauses } from "./retry_after.ts";
export { type FeedFormat, type ParsedFeed, parseFeed, type ParseOptions } from "./parse.ts";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  type FeedRead,
  readFeed,
  type ReadOptions,
} from "./read.ts";
export { typeMismatch } from "./format.ts";
export { formatRfc3339 } from "./dates.ts";
