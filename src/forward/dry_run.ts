import type { Outbox, Sent } from "../messenger/bot_api.ts";
import type { Message } from "../messenger/format.ts";
import type { ForwardState } from "./feed_run.ts";

/** An outbox that prints each message instead of sending it. */
export class PrintingOutbox implements Outbox {
  #count = 0;

  constructor(private readonly write: (text: string) => void) {}

  send(chat: string, message: Message): Promise<Sent> {
    this.#count++;
    this.write(
      `--- message ${this.#count} to ${chat}${
        message.previews ? "" : " (no preview)"
      }\n${message.html}\n`,
    );
    return Promise.resolve({ messageId: 0, chat });
  }
}

/**
 * The state of a dry run: reads what a database holds (or nothing when there is none yet) and
 * writes nothing, so a dry run shows exactly what a real run would send now.
 */
export function readOnlyState(base: ForwardState | null): ForwardState {
  return {
    lookup: (feed, ids) =>
      base ? base.lookup(feed, ids) : Promise.resolve({ known: false, seen: new Set<string>() }),
    validators: (feed) => base ? base.validators(feed) : Promise.resolve(new Map()),
    recordFirstSighting: () => Promise.resolve(),
    markSent: () => Promise.resolve(),
    finishRun: () => Promise.resolve(),
  };
}
