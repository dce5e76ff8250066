/** Effective settings as plain data for display: secrets redacted, next run times computed. */
import { formatRfc3339 } from "../time/rfc3339.ts";
import { describeProxy, parseProxy } from "../net/proxy.ts";
import { redactUrl } from "../secrets/secret.ts";
import { showDbUrl } from "./rules.ts";
import { nextCronRun } from "./cron.ts";
import type { Settings } from "./types.ts";

/** A proxy value for display: "direct", or the URL with its password hidden. */
export function showProxy(proxy: string | null): string {
  return proxy === null ? "direct" : describeProxy(parseProxy(proxy));
}

/** RFC 3339 in local time with its offset, as people read schedules (validate's text). */
export function rfc3339Local(date: Date): string {
  return formatRfc3339(date, { offsetMinutes: -date.getTimezoneOffset(), wholeSeconds: true });
}

/**
 * Keys are spelt as in the config file (and its spec), so a value can be looked up by the key
 * the user wrote. `config` (the file read), `messenger_auth_token_source` and a feed's
 * `next_run` are the only derived keys. Times are ISO 8601 in UTC, as `status --json` writes
 * them.
 */
export type SettingsView = ReturnType<typeof viewSettings>;

export function viewSettings(settings: Settings, now: Date) {
  return {
    config: settings.configPath,
    messenger_auth_token: String(settings.token),
    messenger_auth_token_file: settings.tokenFile ?? null,
    // Where the token came from (src/config/token.ts), never the token.
    messenger_auth_token_source: settings.tokenSource ?? "config (messenger_auth_token)",
    proxy: showProxy(settings.proxy),
    messenger_proxy: showProxy(settings.messengerProxy),
    data_dir: settings.dataDir,
    db_dir: settings.dbDir,
    // The state's server, credentials hidden; null for the local file.
    db_url: settings.dbUrl ? showDbUrl(settings.dbUrl) : null,
    db_auth_token_file: settings.dbAuthTokenFile ?? null,
    last_loaded_path: settings.lastLoadedPath,
    first_time_limit: settings.firstTimeLimit,
    feeds: settings.feeds.map((feed) => {
      const next = nextCronRun(feed.cron, now);
      return {
        name: feed.name,
        channel: feed.channel,
        url: feed.urls.map(redactUrl),
        cron: feed.cron,
        next_run: next?.toISOString() ?? null,
        type: feed.type,
        proxy: showProxy(feed.proxy),
        title: feed.linkText,
        rhash: feed.rhash,
        first_time_limit: feed.firstTimeLimit,
        // null: every entry is posted.
        filter: !feed.filter ? null : { ...feed.filter, fields: [...feed.filter.fields] },
        silent: feed.silent ?? false,
        topic: feed.topic ?? null,
        // null: the default (today's message).
        template: feed.template ?? null,
      };
    }),
  };
}
