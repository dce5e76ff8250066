/**
 * The one place where defaults and precedence are applied: a validated document in, every
 * value in effect out. Pure; `cwd` is passed in.
 *
 * Relative paths in the config (data_dir, db_dir, last_loaded_path, the token files) are the
 * config file's, as Prometheus reads its rule_files: one config run from any directory finds
 * the same state, so it never posts everything again from another working directory.
 */
import { DEFAULT_FILTER_FIELDS, type FilterField } from "../filter/filter.ts";
import { Secret } from "../secrets/secret.ts";
import { dirname, join, resolve } from "node:path";
import type { FeedSettings, FilterSettings, Settings } from "./types.ts";
import type { RawConfig, RawFeed, RawFilter } from "./validate.ts";

/** The proxy in effect: "" means direct (null); `NONE` only reaches here for the messenger. */
function proxyOf(value: string | undefined, fallback: string | null): string | null {
  if (value === undefined) return fallback;
  return value === "" || value === "NONE" ? null : value;
}

const listOf = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** A filter in effect; null for one with nothing to include or exclude (`filter: {}`). */
function filterSettings(raw: RawFilter | undefined): FilterSettings | null {
  if (raw === undefined) return null;
  const include = listOf(raw.include);
  const exclude = listOf(raw.exclude);
  if (include.length === 0 && exclude.length === 0) return null;
  const fields = raw.fields === undefined
    ? DEFAULT_FILTER_FIELDS
    : [...new Set(listOf(raw.fields) as FilterField[])];
  return { include, exclude, fields };
}

/** What feeds inherit from the top level: one object for all of them. */
interface Defaults {
  proxy: string | null;
  limit: number;
  filter: FilterSettings | null;
  silent: boolean;
  template: string | null;
}

function feedSettings(feed: RawFeed, defaults: Defaults): FeedSettings {
  const { proxy: globalProxy, limit: topLimit } = defaults;
  return {
    name: feed.name,
    channel: feed.channel,
    urls: typeof feed.url === "string" ? [feed.url] : [...feed.url],
    cron: feed.cron.trim(),
    type: feed.type,
    rhash: feed.rhash ?? "",
    proxy: proxyOf(feed.proxy, globalProxy),
    linkText: feed.title ?? "Link",
    // Its own non-zero value wins; 0 (the default) defers to the top level (-1: no limit).
    firstTimeLimit: feed.first_time_limit || topLimit,
    firstTimeLimitFrom: feed.first_time_limit ? "feed" : "top",
    filter: feed.filter === undefined ? defaults.filter : filterSettings(feed.filter),
    silent: feed.silent ?? defaults.silent,
    topic: feed.topic ?? null,
    template: feed.template ?? defaults.template,
  };
}

export function effectiveSettings(raw: RawConfig, configPath: string, cwd: string): Settings {
  const configFile = resolve(cwd, configPath);
  const configDir = dirname(configFile);
  const abs = (path: string) => resolve(configDir, path);
  const globalProxy = proxyOf(raw.proxy, null);
  const dataDir = abs(raw.data_dir ?? "./");
  const topLimit = raw.first_time_limit ?? -1;
  const defaults: Defaults = {
    proxy: globalProxy,
    limit: topLimit,
    filter: filterSettings(raw.filter),
    silent: raw.silent ?? false,
    template: raw.template ?? null,
  };
  return {
    configPath: configFile,
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
    feeds: raw.feeds.map((feed) => feedSettings(feed, defaults)),
  };
}
