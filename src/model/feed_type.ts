/** The feed formats a config may name; a hint for the parser, which detects the real one. */
export type FeedType = "rss" | "atom";
