/**
 * What a feed makes of its entries, as pure functions shared by a feed run and `courier
 * preview -c`: which the filter keeps, and the message each kept one becomes.
 */
import type { FeedSettings } from "../config/types.ts";
import type { Entry } from "../model/entry.ts";
import { judge } from "../filter/filter.ts";
import { formatMessage, type Message } from "../messenger/format.ts";
import { entryFilterOf, templateOf } from "./compiled.ts";

/** How a feed's messages are delivered: without a sound, into a topic (only what is set). */
export function deliveryOf(feed: FeedSettings): Pick<Message, "silent" | "topic"> {
  const delivery: Pick<Message, "silent" | "topic"> = {};
  if (feed.silent) delivery.silent = true;
  if (feed.topic != null) delivery.topic = feed.topic;
  return delivery;
}

/** The message a feed sends for an entry: its template, its link text, its delivery. */
export function messageFor(feed: FeedSettings, entry: Entry): Message {
  return {
    ...formatMessage(entry, {
      linkText: feed.linkText,
      rhash: feed.rhash,
      template: templateOf(feed),
      feed: feed.name,
    }),
    ...deliveryOf(feed),
  };
}

export interface EntryOutcome {
  entry: Entry;
  /** Why the filter drops it; null when it is kept. */
  dropped: string | null;
  /** The message it becomes when kept. */
  message: Message | null;
}

/** Each entry with the filter's verdict and, when kept, its message. */
export function entryOutcomes(feed: FeedSettings, entries: readonly Entry[]): EntryOutcome[] {
  const filter = entryFilterOf(feed);
  return entries.map((entry) => {
    const dropped = filter ? judge(filter, entry) : null;
    return { entry, dropped, message: dropped === null ? messageFor(feed, entry) : null };
  });
}
