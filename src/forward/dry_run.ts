import type { Outbox, Sent } from "../messenger/bot_api.ts";
import type { Message } from "../messenger/format.ts";
import type { Entry } from "../model/entry.ts";
import type { ForwardState } from "./feed_run.ts";

/** An outbox that prints each message instead of sending it. */
export class PrintingOutbox implements Outbox {
  #count = 0;

  constructor(private readonly write: (text: string) => void) {}

  send(chat: string, message: Message): Promise<Sent> {
    this.#count++;
    const topic = message.topic === undefined ? "" : ` topic ${message.topic}`;
    const notes = [
      ...(message.silent ? ["silent"] : []),
      ...(message.previews ? [] : ["no preview"]),
    ];
    this.write(
      `--- message ${this.#count} to ${chat}${topic}${
        notes.length > 0 ? ` (${notes.join(", ")})` : ""
      }\n${message.html}\n`,
    );
    return Promise.resolve({ messageId: 0, chat });
  }
}

/**
 * The state of a dry run: reads what a database holds (or nothing when there is none yet) and
 * writes nothing to it, so a dry run shows exactly what a real run would send now. What it
 * "sent" or skipped is remembered in memory for the life of the process, so a dry-run
 * `forward` prints each entry once, as a real one would send it, not at every tick.
 */
export function readOnlyState(base: ForwardState | null): ForwardState {
  const printed = new Map<string, Set<string>>();
  const remember = (feed: string, entries: readonly Entry[]) => {
    let ids = printed.get(feed);
    if (!ids) printed.set(feed, ids = new Set());
    for (const entry of entries) ids.add(entry.id);
    return Promise.resolve();
  };
  return {
    lookup: async (feed, ids) => {
      const found = base ? await base.lookup(feed, ids) : { known: false, seen: new Set<string>() };
      const mine = printed.get(feed);
      if (!mine) return found;
      const seen = new Set(found.seen);
      for (const id of ids) if (mine.has(id)) seen.add(id);
      return { known: true, seen };
    },
    validators: (feed) => base ? base.validators(feed) : Promise.resolve(new Map()),
    recordFirstSighting: remember,
    recordFiltered: remember,
    markSent: (feed, entry) => remember(feed, [entry]),
    markRefused: (feed, entry) => remember(feed, [entry]),
    finishRun: () => Promise.resolve(),
  };
}
