import type { FeedSettings } from "../config/types.ts";
import { Forwarder, type ForwarderOptions, type RunSummary } from "./forwarder.ts";

export interface OnceOptions extends Omit<ForwarderOptions, "onUnauthorized"> {
  /** The feeds to run, in config order (the order of delivery on a shared channel). */
  feeds: FeedSettings[];
}

/**
 * The longest `once` lets the messenger hold a channel (a 429's retry_after): a run started by
 * cron must end, and hold the data_dir lock, within minutes; past this the feed fails for this
 * run with its entries kept, and the next run tries again.
 */
export const ONCE_MAX_MESSENGER_WAIT_MS = 60_000;

/**
 * Runs each feed once: a forwarder run once over the feeds. A fatal messenger error (401)
 * stops every feed; any other failure stays with its feed.
 */
export function runOnce(options: OnceOptions): Promise<RunSummary> {
  return new Forwarder({
    maxMessengerWaitMs: ONCE_MAX_MESSENGER_WAIT_MS,
    ...options,
    onUnauthorized: "stop",
  }).run(options.feeds);
}
