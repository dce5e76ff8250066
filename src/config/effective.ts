/**
 * The one place where defaults and precedence are applied: a validated document in, every
 * value in effect out. Pure; `cwd` is passed in.
 */
import { isAbsolute, join, resolve } from "node:path";
import { Secret } from "../log/secret.ts";
import type { FeedSettings, Settings } from "./types.ts";
import type { RawConfig, RawFeed } from "./validate.ts";

/** The proxy in effect: "" means direct (null); `NONE` only reaches here for the messenger. */
function proxyOf(value: string | undefined, fallback: string | null): string | null {
  if (value === undefined) return fallback;
  return value === "" || value === "NONE" ? null : value;
}

/**
 * A feed's first-sighting limit: its own non-zero value wins, 0 (the default) defers to the
 * top level, whose default -1 means no limit.
 */
export function effectiveLimit(feedLimit: number | undefined, topLimit: number): number {
  return feedLimit !== undefined && feedLimit !== 0 ? feedLimit : topLimit;
}

function feedSettings(feed: RawFeed, globalProxy: string | null, topLimit: number): FeedSettings {
  return {
    name: feed.name,
    channel: feed.channel,
    urls: typeof feed.url === "string" ? [feed.url] : [...feed.url],
    cron: feed.cron.trim(),
    type: feed.type,
    rhash: feed.rhash ?? "",
    proxy: proxyOf(feed.proxy, globalProxy),
    linkText: feed.title ?? "Link",
    firstTimeLimit: effectiveLimit(feed.first_time_limit, topLimit),
  };
}

export function effectiveSettings(raw: RawConfig, configPath: string, cwd: string): Settings {
  const abs = (path: string) => isAbsolute(path) ? path : resolve(cwd, path);
  const globalProxy = proxyOf(raw.proxy, null);
  const dataDir = abs(raw.data_dir ?? "./");
  const topLimit = raw.first_time_limit ?? -1;
  return {
    configPath: abs(configPath),
    // Empty until src/config/token.ts has looked at the environment and the token file.
    token: new Secret(raw.messenger_auth_token ?? ""),
    tokenSource: "config",
    tokenFile: raw.messenger_auth_token_file === undefined
      ? null
      : abs(raw.messenger_auth_token_file),
    proxy: globalProxy,
    messengerProxy: proxyOf(raw.messenger_proxy, globalProxy),
    dataDir,
    dbDir: raw.db_dir === undefined ? join(dataDir, "feed_data") : abs(raw.db_dir),
    dbUrl: raw.db_url ?? null,
    dbAuthTokenFile: raw.db_auth_token_file === undefined ? null : abs(raw.db_auth_token_file),
    lastLoadedPath: raw.last_loaded_path === undefined
      ? join(dataDir, "last_success.yml")
      : abs(raw.last_loaded_path),
    firstTimeLimit: topLimit,
    feeds: raw.feeds.map((feed) => feedSettings(feed, globalProxy, topLimit)),
  };
}
