/**
 * The config's fields, as the spec's tables give them: one entry per key with its rule, its
 * JSON Schema fragment and its documentation. The validator, the JSON Schema and the reference
 * (docs/config-reference.md) are all read from here, so a field cannot exist in one and not the
 * others.
 */
import { FILTER_FIELDS } from "../filter/filter.ts";
import { DEFAULT_TEMPLATE } from "../messenger/template.ts";
import { parseProxy } from "../net/proxy.ts";
import {
  CHANNEL_PATTERN,
  type Check,
  checkChannel,
  checkCron,
  checkDbUrl,
  checkFilterField,
  checkLimit,
  checkName,
  checkNonEmpty,
  checkPattern,
  checkRhash,
  checkSilent,
  checkTemplate,
  checkToken,
  checkTopic,
  checkType,
  checkUrl,
  DB_URL_PATTERN,
  NAME_PATTERN,
  PROXY_PATTERN,
  proxyCheck,
  RHASH_PATTERN,
  TOKEN_PATTERN,
  URL_PATTERN,
} from "./rules.ts";

export type JsonSchema = Record<string, unknown>;

/** A required key, or an optional one with the default the spec states (for documentation). */
export type Field = FieldRule & ({ required: true } | { required?: never; default: string });

interface FieldRule {
  description: string;
  schema: JsonSchema;
  /** Checks a scalar value; absent for `feeds` and `refs`, which the validator walks itself. */
  check?: Check;
  /** For a value that may also be a list: the check of each element. */
  each?: Check;
  /** What one element of such a list is, for "must list at least one ...". */
  itemName?: string;
  /** For a mapping (`filter`): its own fields, checked like the config's. */
  fields?: Record<string, Field>;
}

const CRON_SCHEMA_PATTERN =
  "^\\s*(@(yearly|annually|monthly|weekly|daily|hourly)|\\S+(\\s+\\S+){4})\\s*$";

const proxySchema = (allowNone: boolean): JsonSchema =>
  allowNone
    ? { type: "string", anyOf: [{ const: "NONE" }, { pattern: PROXY_PATTERN }] }
    : { type: "string", pattern: PROXY_PATTERN, not: { const: "NONE" } };

const limitSchema: JsonSchema = { type: "integer", minimum: -1 };

/** One value, or a non-empty list of them. */
const oneOrMore = (item: JsonSchema): JsonSchema => ({
  anyOf: [item, { type: "array", minItems: 1, items: item }],
});

const PATTERN_ITEM = "word, phrase or /expression/";

/** The keys of a `filter` (top level or per feed). */
export const FILTER_TABLE: Record<string, Field> = {
  include: {
    default: "none (every entry)",
    description: "Words, phrases or `/expressions/flags`: an entry is posted only if one of " +
      "them matches. Words and phrases match whole words, in any case; an expression is " +
      "RE2 syntax (no back-references or lookaround), flags `i`, `m`, `s`. " +
      'Example: `[rust, "web assembly", "/\\bRFC ?\\d+/i"]`.',
    schema: oneOrMore({ type: "string", minLength: 1 }),
    each: checkPattern,
    itemName: PATTERN_ITEM,
  },
  exclude: {
    default: "none",
    description: "The same kinds of item: an entry that matches any of them is not posted " +
      "(it is recorded as seen). Example: `[sponsored, /^ad:/i]`.",
    schema: oneOrMore({ type: "string", minLength: 1 }),
    each: checkPattern,
    itemName: PATTERN_ITEM,
  },
  fields: {
    default: "`[title, categories]`",
    description: "What is matched: `title`, `categories` (RSS `<category>`, Atom " +
      "`<category term>`, each on its own) and `summary`. Example: `[title, summary]`.",
    schema: oneOrMore({ type: "string", enum: [...FILTER_FIELDS] }),
    each: checkFilterField,
    itemName: "field",
  },
};

const filterField = (where: "top" | "feed"): Field => ({
  default: where === "top" ? "none" : "the top-level `filter`",
  description: where === "top"
    ? "Default `filter` of every feed that has none of its own (see the filter table)."
    : "Which entries are posted (see the filter table below); replaces the top-level one. " +
      "`filter: {}` posts everything. Filtered entries are recorded as seen and never posted.",
  schema: { $ref: "#/$defs/filter" },
  fields: FILTER_TABLE,
});

const silentField = (where: "top" | "feed"): Field => ({
  default: where === "top" ? "false" : "the top-level `silent`",
  description: where === "top"
    ? "Default `silent` of every feed."
    : "`true` posts without a notification (Telegram's `disable_notification`).",
  schema: { type: "boolean" },
  check: checkSilent,
});

const templateField = (where: "top" | "feed"): Field => ({
  default: where === "top"
    ? `\`${DEFAULT_TEMPLATE.replace("\n", "\\n")}\``
    : "the top-level `template`",
  description: where === "top"
    ? "Default `template` of every feed."
    : "The message's layout: Telegram HTML (`<b>`, `<i>`, `<u>`, `<s>`, `<a href>`, " +
      "`<code>`, `<pre>`, `<blockquote>`, `<tg-spoiler>`...) with fields `{title}`, `{link}`, " +
      "`{feed}` (the feed's name), `{link_text}` (its `title`), `{date}`, `{categories}` " +
      "(as hashtags), `{summary}` (300 characters) or `{summary:N}`. Values are escaped; " +
      "a line whose fields from the entry are all missing is left out. " +
      'Example: `"<b>{title}</b> {categories}\\n{summary:200}\\n<a href=\\"{link}\\">{link_text}</a>"`.',
  schema: { type: "string", minLength: 1 },
  check: checkTemplate,
});

export const TOP_FIELDS: Record<string, Field> = {
  messenger_auth_token: {
    default: "none",
    description: "Bot API token, shaped `<digits>:<token>` (from @BotFather). Never printed. " +
      "Required unless `messenger_auth_token_file` or the environment gives it (see Secrets).",
    schema: { type: "string", pattern: TOKEN_PATTERN },
    check: checkToken,
  },
  messenger_auth_token_file: {
    default: "none",
    description: "A file whose first line is the token (a Docker secret, a systemd " +
      "credential), instead of `messenger_auth_token`; read again on SIGHUP.",
    schema: { type: "string", minLength: 1 },
    check: checkNonEmpty,
  },
  feeds: {
    required: true,
    description: "The feeds to forward (a list of feed objects, at least one).",
    schema: { type: "array", minItems: 1, items: { $ref: "#/$defs/feed" } },
  },
  proxy: {
    default: '"" (direct)',
    description: "Default proxy for feeds and the messenger: `http://`, `https://`, " +
      "`socks5://`, `socks5h://` (optional `user:pass@`) or `socks5://unix/<socket_path>`. " +
      "Empty means direct.",
    schema: proxySchema(false),
    check: proxyCheck(parseProxy, false),
  },
  messenger_proxy: {
    default: "the global `proxy`",
    description: "Proxy for the messenger API only. `NONE` means direct even when `proxy` " +
      "is set; empty also means direct.",
    schema: proxySchema(true),
    check: proxyCheck(parseProxy, true),
  },
  data_dir: {
    default: '"./"',
    description: "Base directory for the state database and the last-success file. A " +
      "relative path, here and in every path key, is from the config file's directory.",
    schema: { type: "string", minLength: 1 },
    check: checkNonEmpty,
  },
  last_loaded_path: {
    default: "`<data_dir>/last_success.yml`",
    description: "YAML file recording each feed's last successful run (RFC 3339).",
    schema: { type: "string", minLength: 1 },
    check: checkNonEmpty,
  },
  db_dir: {
    default: "`<data_dir>/feed_data`",
    description: "Directory of the state database `courier.db`.",
    schema: { type: "string", minLength: 1 },
    check: checkNonEmpty,
  },
  db_url: {
    default: "none (a local file)",
    description: "A libSQL server holding the state instead of `<db_dir>/courier.db`: " +
      "`libsql://` (Turso), `https://`, `http://`, `wss://`, `ws://` (sqld). Several `forward` " +
      "processes may share it (see Several machines). Not with `db_dir`.",
    schema: { type: "string", pattern: DB_URL_PATTERN },
    check: checkDbUrl,
  },
  db_auth_token_file: {
    default: "none",
    description: "A file whose first line is the auth token of `db_url`; " +
      "`$LIBSQL_AUTH_TOKEN` wins over it. Never printed.",
    schema: { type: "string", minLength: 1 },
    check: checkNonEmpty,
  },
  first_time_limit: {
    default: "-1",
    description: "Entries sent when a feed is seen for the first time: the newest N, " +
      "oldest first; the rest are recorded as seen. -1 means no limit.",
    schema: limitSchema,
    check: checkLimit,
  },
  filter: filterField("top"),
  silent: silentField("top"),
  template: templateField("top"),
  refs: {
    default: "none",
    description: "Free place for YAML anchors used elsewhere (`&proxy`, `&every5`, ...). " +
      "Not read otherwise.",
    schema: { type: "object" },
  },
};

export const FEED_FIELDS: Record<string, Field> = {
  name: {
    required: true,
    description: "Unique feed name: letters, digits, `.`, `_`, `-`, starting with a letter " +
      "or digit (at most 100 characters).",
    schema: { type: "string", pattern: NAME_PATTERN, maxLength: 100 },
    check: checkName,
  },
  channel: {
    required: true,
    description: "Target channel: `@channel_name` or a private channel id `-100...` " +
      "(quoted, it is a string).",
    schema: { type: "string", pattern: CHANNEL_PATTERN },
    check: checkChannel,
  },
  url: {
    required: true,
    description: "Feed URL (absolute http/https), or a non-empty list of URLs whose entries " +
      "are merged.",
    schema: {
      anyOf: [
        { type: "string", pattern: URL_PATTERN },
        { type: "array", minItems: 1, items: { type: "string", pattern: URL_PATTERN } },
      ],
    },
    each: checkUrl,
    itemName: "URL",
  },
  cron: {
    required: true,
    description: "Schedule, five fields (minute hour day-of-month month day-of-week) or " +
      "`@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`. Times are local.",
    schema: { type: "string", pattern: CRON_SCHEMA_PATTERN },
    check: checkCron,
  },
  type: {
    required: true,
    description: "`rss` or `atom`: a hint; the real format is detected and a mismatch is a " +
      "warning.",
    schema: { type: "string", enum: ["rss", "atom"] },
    check: checkType,
  },
  rhash: {
    default: '"" (plain links)',
    description: "Instant View template hash; links become `https://t.me/iv?url=...&rhash=...`.",
    schema: { type: "string", pattern: RHASH_PATTERN },
    check: checkRhash,
  },
  proxy: {
    default: "the global `proxy`",
    description: "Proxy for fetching this feed; empty means direct.",
    schema: proxySchema(false),
    check: proxyCheck(parseProxy, false),
  },
  title: {
    default: '"Link"',
    description: "Text of the link in each message.",
    schema: { type: "string", minLength: 1 },
    check: checkNonEmpty,
  },
  first_time_limit: {
    default: "0",
    description: "This feed's first-sighting limit; 0 means the top-level value, -1 no limit.",
    schema: limitSchema,
    check: checkLimit,
  },
  filter: filterField("feed"),
  silent: silentField("feed"),
  topic: {
    default: "none (the chat itself)",
    description: "Forum topic to post in, in a supergroup with topics (Telegram's " +
      "`message_thread_id`: the number after the chat in a topic's link, " +
      "`https://t.me/c/<chat>/<topic>`). A topic that does not exist fails the feed, like a " +
      "missing chat.",
    schema: { type: "integer", minimum: 1 },
    check: checkTopic,
  },
  template: templateField("feed"),
};
