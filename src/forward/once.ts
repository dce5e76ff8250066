import type { FeedSettings } from "../config/types.ts";
import { Forwarder, type ForwarderOptions, type RunSummary } from "./forwarder.ts";

export interface OnceOptions extends Omit<ForwarderOptions, "onUnauthorized"> {
  /** The feeds to run, in config order (the order of delivery on a shared channel). */
  feeds: FeedSettings[];
}

export type OnceSummary = RunSummary;

/**
 * Runs each feed once: a forwarder run once over the feeds. A fatal messenger error (401)
 * stops every feed; any other failure stays with its feed.
 */
export function runOnce(options: OnceOptions): Promise<OnceSummary> {
  return new Forwarder({ ...options, onUnauthorized: "stop" }).run(options.feeds);
}
