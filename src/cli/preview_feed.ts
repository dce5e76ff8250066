/**
 * `courier preview URL|FILE -c CONFIG --feed NAME`: the entries as that feed would treat them,
 * which its filter keeps and drops (and why), and the message each kept one becomes. Loaded only
 * with --feed; nothing is sent and nothing is recorded.
 */
import type { FeedSettings } from "../config/types.ts";
import { formatRfc3339 } from "../time/rfc3339.ts";
import { type EntryOutcome, entryOutcomes } from "../forward/messages.ts";
import { UsageError, UserError } from "./errors.ts";
import { entryLines, headline, type Preview } from "./preview_view.ts";

/** The feed named `name` in the config at `configPath`; a usage error when there is none. */
export async function feedFromConfig(configPath: string, name: string): Promise<FeedSettings> {
  const [{ ConfigError }, { loadSettings }] = await Promise.all([
    import("../config/errors.ts"),
    import("../config/load.ts"),
  ]);
  let feeds: FeedSettings[];
  try {
    feeds = (await loadSettings(configPath, { token: false })).feeds;
  } catch (error) {
    if (error instanceof ConfigError) throw new UserError(error.message, 2);
    throw error;
  }
  const feed = feeds.find((f) => f.name === name);
  if (feed === undefined) {
    throw new UsageError(
      `courier preview: no feed "${name}" in ${configPath} (its feeds: ${
        feeds.map((f) => f.name).join(", ")
      })`,
    );
  }
  return feed;
}

function deliveryNote(outcome: EntryOutcome): string {
  const m = outcome.message!;
  const notes = [
    ...(m.topic === undefined ? [] : [`topic ${m.topic}`]),
    ...(m.silent ? ["silent"] : []),
    ...(m.previewUrl === undefined ? [] : [`preview ${m.previewUrl}`]),
  ];
  return notes.length === 0 ? "" : ` (${notes.join(", ")})`;
}

export function renderFeedText(preview: Preview, feed: FeedSettings): string {
  const outcomes = entryOutcomes(feed, preview.entries);
  const kept = outcomes.filter((o) => o.dropped === null).length;
  const lines = [
    `${headline(preview)} as feed ${feed.name}: ${kept} kept, ${
      outcomes.length - kept
    } dropped by its filter`,
  ];
  outcomes.forEach((outcome, i) => {
    const { entry } = outcome;
    lines.push(...entryLines(entry, i));
    if (entry.categories) lines.push(`   categories: ${entry.categories.join(", ")}`);
    if (outcome.dropped !== null) {
      lines.push(`   DROPPED: ${outcome.dropped}`);
      return;
    }
    lines.push(`   KEPT; message${deliveryNote(outcome)}:`);
    for (const line of outcome.message!.html.split("\n")) lines.push(`     ${line}`);
  });
  return lines.join("\n");
}

export function renderFeedJson(preview: Preview, feed: FeedSettings): string {
  const outcomes = entryOutcomes(feed, preview.entries);
  return JSON.stringify(
    {
      format: preview.format,
      title: preview.title,
      feed: feed.name,
      entries: outcomes.map(({ entry, dropped, message }) => ({
        id: entry.id,
        link: entry.link,
        title: entry.title,
        published: entry.published ? formatRfc3339(entry.published) : null,
        categories: entry.categories ?? [],
        kept: dropped === null,
        dropped,
        message: message === null ? null : {
          html: message.html,
          silent: message.silent ?? false,
          topic: message.topic ?? null,
          preview_url: message.previewUrl ?? null,
        },
      })),
    },
    null,
    2,
  );
}
