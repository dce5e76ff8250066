/** Defaults that a command's help states and its implementation applies. */

/** Feeds fetched at once by `once` and `forward`. */
export const DEFAULT_CONCURRENCY = 8;

/** How long `forward`'s runs under way may take to finish on SIGINT/SIGTERM, seconds. */
export const DEFAULT_GRACE_S = 30;
