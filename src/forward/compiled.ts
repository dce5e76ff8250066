/**
 * A feed's filter and template compiled from its settings (config/ gives them as written):
 * each once per settings object, so the feeds that inherit the top level's share one.
 */
import type { FeedSettings, FilterSettings } from "../config/types.ts";
import type { EntryFilter } from "../filter/filter.ts";
import { compilePattern, type Pattern } from "../filter/pattern.ts";
import { parseTemplate, type Template } from "../messenger/template.ts";

const filters = new WeakMap<FilterSettings, EntryFilter>();
const templates = new Map<string, Template>();

function patterns(items: readonly string[]): Pattern[] {
  return items.map((item) => {
    const pattern = compilePattern(item);
    // The config's checks refused it already; reaching here is a bug, not a config problem.
    if (typeof pattern === "string") throw new Error(`unchecked filter item: ${pattern}`);
    return pattern;
  });
}

/** The feed's compiled filter; null when it has none. */
export function entryFilterOf(feed: FeedSettings): EntryFilter | null {
  const settings = feed.filter;
  if (!settings) return null;
  let filter = filters.get(settings);
  if (filter === undefined) {
    filter = {
      include: patterns(settings.include),
      exclude: patterns(settings.exclude),
      fields: settings.fields,
    };
    filters.set(settings, filter);
  }
  return filter;
}

/** The feed's parsed template; null for the default. */
export function templateOf(feed: FeedSettings): Template | null {
  const source = feed.template;
  if (source == null) return null;
  let template = templates.get(source);
  if (template === undefined) templates.set(source, template = parseTemplate(source));
  return template;
}
