import type { FilterField } from "../filter/filter.ts";
import type { Secret } from "../secrets/secret.ts";
import type { FeedType } from "../model/feed_type.ts";

/**
 * A `filter` in effect, as the config wrote it (its own, else the top level's): what
 * src/forward/compiled.ts compiles.
 */
export interface FilterSettings {
  include: string[];
  exclude: string[];
  fields: readonly FilterField[];
}

/**
 * One feed with every value in effect: defaults applied, precedence resolved, paths absolute.
 * Computed only by `src/config/effective.ts`; everything else reads these.
 */
export interface FeedSettings {
  name: string;
  /** `@name` or `-digits`. */
  channel: string;
  /** One or more absolute http(s) URLs, in config order. */
  urls: string[];
  /** Five-field cron expression, validated by croner. */
  cron: string;
  type: FeedType;
  /** Instant View template hash; "" means plain links. */
  rhash: string;
  /** Proxy URL for fetching this feed, or null for a direct connection. */
  proxy: string | null;
  /** Text of the link in each message (the config's `title`, default "Link"). */
  linkText: string;
  /** Entries sent at the first sighting: the newest N; -1 means no limit. */
  firstTimeLimit: number;
  /** Whose `first_time_limit` that is: the feed's own, or the top level's (the default). */
  firstTimeLimitFrom?: "feed" | "top";
  // The optional settings below are always set by effective.ts; absent (as in settings built
  // by hand) reads as null or false.
  /** Which entries are posted (its own `filter`, else the top level's); null: every one. */
  filter?: FilterSettings | null;
  /** Posted without a notification (`disable_notification`). */
  silent?: boolean;
  /** The forum topic posted in (`message_thread_id`); null: the chat itself. */
  topic?: number | null;
  /** The message layout's text (its own `template`, else the top level's); null: the default. */
  template?: string | null;
}

/** The whole config with every value in effect. */
export interface Settings {
  /** Absolute path of the config file it came from. */
  configPath: string;
  /** `<digits>:<token>`; never printed. */
  token: Secret;
  /**
   * Where the token came from, for `validate` (never the token): "config", or as
   * src/config/token.ts describes it. Absent: the config's messenger_auth_token.
   */
  tokenSource?: string;
  /** What changes the token where it came from, for a token the messenger refuses. */
  tokenFix?: string;
  /** The config's `messenger_auth_token_file`, absolute; null when not set. */
  tokenFile?: string | null;
  /** Things worth a warning that do not stop the config (a token file others can read). */
  warnings?: readonly string[];
  /** The top-level `proxy` (null = direct): the default of feeds and the messenger. */
  proxy: string | null;
  /** Proxy for the messenger API, or null for a direct connection. */
  messengerProxy: string | null;
  dataDir: string;
  dbDir: string;
  /** The config's `db_url`: the state on a libSQL server instead of `dbDir`; null for local. */
  dbUrl?: string | null;
  /** The config's `db_auth_token_file`, absolute; null when not set. */
  dbAuthTokenFile?: string | null;
  lastLoadedPath: string;
  /** The top-level `first_time_limit` (-1 = no limit). */
  firstTimeLimit: number;
  feeds: FeedSettings[];
}
