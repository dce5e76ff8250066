/**
 * The feed reader as delivery sees it: `readFeed` of src/feeds/read.ts, or a stub with the same
 * contract in tests. The types are those of src/feeds (one definition).
 */
import type { FeedRead, ReadOptions } from "../feeds/read.ts";

export type { Validators } from "../feeds/fetch.ts";
export type { FeedRead, ReadOptions } from "../feeds/read.ts";

/** Reads one feed (all its URLs); throws an error naming the URL when any fails. */
export type FeedReader = (options: ReadOptions) => Promise<FeedRead>;
