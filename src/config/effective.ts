/**
 * The one place where defaults and precedence are applied: a validated document in, every
 * value in effect out. Pure; `cwd` is passed in.
 */
import { DEFAULT_FILTER_FIELDS, type EntryFilter, type FilterField } from "../filter/filter.ts";
import { compilePattern, type Pattern } from "../filter/pattern.ts";
import { Secret } from "../secrets/secret.ts";
import { parseTemplate, type Template } from "../messenger/template.ts";
import { join, resolve } from "node:path";
import type { FeedSettings, Settings } from "./types.ts";
import type { RawConfig, RawFeed, RawFilter } from "./validate.ts";

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

const listOf = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

function patterns(items: string | string[] | undefined): Pattern[] {
  return listOf(items).map((item) => {
    const pattern = compilePattern(item);
    // The checks refused it already; reaching here is a bug, not a config problem.
    if (typeof pattern === "string") throw new Error(`unchecked filter item: ${pattern}`);
    return pattern;
  });
}

/** A compiled filter; null for one with nothing to include or exclude (`filter: {}`). */
export function compileFilter(raw: RawFilter | undefined): EntryFilter | null {
  if (raw === undefined) return null;
  const include = patterns(raw.include);
  const exclude = patterns(raw.exclude);
  if (include.length === 0 && exclude.length === 0) return null;
  const fields = raw.fields === undefined
    ? DEFAULT_FILTER_FIELDS
    : [...new Set(listOf(raw.fields) as FilterField[])];
  return { include, exclude, fields };
}

/** What feeds inherit from the top level, each compiled once for all of them. */
interface Defaults {
  proxy: string | null;
  limit: number;
  filter: EntryFilter | null;
  silent: boolean;
  template: Template | null;
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
    firstTimeLimit: effectiveLimit(feed.first_time_limit, topLimit),
    filter: feed.filter === undefined ? defaults.filter : compileFilter(feed.filter),
    silent: feed.silent ?? defaults.silent,
    topic: feed.topic ?? null,
    template: feed.template === undefined ? defaults.template : parseTemplate(feed.template),
  };
}

export function effectiveSettings(raw: RawConfig, configPath: string, cwd: string): Settings {
  const abs = (path: string) => resolve(cwd, path);
  const globalProxy = proxyOf(raw.proxy, null);
  const dataDir = abs(raw.data_dir ?? "./");
  const topLimit = raw.first_time_limit ?? -1;
  const defaults: Defaults = {
    proxy: globalProxy,
    limit: topLimit,
    filter: compileFilter(raw.filter),
    silent: raw.silent ?? false,
    template: raw.template === undefined ? null : parseTemplate(raw.template),
  };
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
    feeds: raw.feeds.map((feed) => feedSettings(feed, defaults)),
  };
}
