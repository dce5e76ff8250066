import type { FeedSettings, Settings } from "../config/types.ts";

/** A feed named on the command line that the config does not have (exit code 2). */
export class UnknownFeedError extends Error {
  override name = "UnknownFeedError";
  readonly exitCode = 2;
}

/** The named feeds (all when none is named), in config order: the delivery order on a channel. */
export function selectFeeds(command: string, settings: Settings, names: string[]): FeedSettings[] {
  if (names.length === 0) return settings.feeds;
  const known = new Map(settings.feeds.map((f) => [f.name, f]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new UnknownFeedError(
      `courier ${command}: no feed named ${unknown.map((n) => `"${n}"`).join(", ")} in ` +
        `${settings.configPath} (feeds: ${[...known.keys()].join(", ")})`,
    );
  }
  return settings.feeds.filter((f) => names.includes(f.name));
}
