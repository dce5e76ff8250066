import { rfc3339Local, type SettingsView, viewSettings } from "../config/describe.ts";
import { ConfigError } from "../config/errors.ts";
import { configPathFrom, loadSettings } from "../config/load.ts";
import type { Settings } from "../config/types.ts";
import { parseCommandArgs } from "./args.ts";
import { UserError } from "./errors.ts";

/** The view's UTC time in the machine's zone, as cron reads the schedule. */
const localTime = (iso: string | null) => iso === null ? "never" : rfc3339Local(new Date(iso));

const limitText = (n: number) => n === -1 ? "no limit" : `newest ${n}`;

type FeedView = SettingsView["feeds"][number];

/** The rows of the optional settings a feed has in effect; none for a feed without them. */
function extras(feed: FeedView): [string, string][] {
  const rows: [string, string][] = [];
  // As written in the config, not JSON-escaped: `/\bRFC ?\d+/i` shows one backslash each.
  const list = (items: string[]) => items.map((item) => `"${item}"`).join(", ");
  if (feed.filter !== null) {
    if (feed.filter.include.length > 0) rows.push(["include", list(feed.filter.include)]);
    if (feed.filter.exclude.length > 0) rows.push(["exclude", list(feed.filter.exclude)]);
    rows.push(["filter fields", feed.filter.fields.join(", ")]);
  }
  if (feed.silent) rows.push(["silent", "yes (no notification)"]);
  if (feed.topic !== null) rows.push(["topic", String(feed.topic)]);
  if (feed.template !== null) rows.push(["template", JSON.stringify(feed.template)]);
  return rows;
}

function render(view: SettingsView): string {
  const rows = (pairs: [string, string][], indent: string) => {
    const width = Math.max(...pairs.map(([k]) => k.length));
    return pairs.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`).join("\n");
  };
  const head = rows([
    ["token", `${view.messenger_auth_token} (from ${view.messenger_auth_token_source})`],
    ["proxy", view.proxy],
    ["messenger proxy", view.messenger_proxy],
    ["data_dir", view.data_dir],
    ["database", view.db_url ?? `${view.db_dir}/courier.db`],
    ...(view.db_auth_token_file === null
      ? []
      : [["database token", `file ${view.db_auth_token_file}`] as [string, string]]),
    ["last success file", view.last_loaded_path],
    ["first_time_limit", limitText(view.first_time_limit)],
  ], "  ");
  const feeds = view.feeds.map((feed) =>
    `feed ${feed.name}\n` + rows([
      ["channel", feed.channel],
      ...feed.url.map((url, i): [string, string] => [i === 0 ? "url" : "", url]),
      ["cron", `${feed.cron}  (next run ${localTime(feed.next_run)})`],
      ["type", feed.type],
      ["proxy", feed.proxy],
      ["link text", JSON.stringify(feed.title)],
      ["rhash", feed.rhash === "" ? "none (plain links)" : feed.rhash],
      ["first sighting", limitText(feed.first_time_limit)],
      ...extras(feed),
    ], "  ")
  );
  const count = `${view.feeds.length} feed${view.feeds.length === 1 ? "" : "s"}`;
  return `${view.config}: valid, ${count}\n${head}\n\n${feeds.join("\n\n")}`;
}

/** `courier validate`: loaded by validateCommand.run only when the command runs. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs("validate", argv, {
    config: { type: "string", short: "c" },
    json: { type: "boolean" },
  });
  let view: SettingsView;
  let settings: Settings;
  try {
    settings = await loadSettings(configPathFrom(values.config));
    view = viewSettings(settings, new Date());
  } catch (error) {
    if (error instanceof ConfigError) throw new UserError(error.message, 2);
    throw error;
  }
  for (const warning of settings.warnings ?? []) console.error(`warning: ${warning}`);
  console.log(values.json ? JSON.stringify(view, null, 2) : render(view));
  return 0;
}
