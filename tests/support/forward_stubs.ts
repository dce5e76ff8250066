/** Stubs for driving feed runs without a network: a scripted reader and a recording outbox. */
import type { FeedSettings } from "../../src/config/types.ts";
import type { Entry } from "../../src/model/entry.ts";
import type { Outbox, Sent } from "../../src/messenger/bot_api.ts";
import type { Message } from "../../src/messenger/format.ts";
import type { FeedRead, ReadOptions } from "../../src/feeds/read.ts";
import { createLogger, type Logger } from "../../src/log/logger.ts";

export function makeEntry(id: string, minute = 0): Entry {
  return {
    id,
    link: `https://example.org/${id}`,
    title: `Title ${id}`,
    published: new Date(Date.UTC(2024, 0, 1, 0, minute)),
    updated: null,
    summary: "",
  };
}

export function makeFeed(name: string, partial: Partial<FeedSettings> = {}): FeedSettings {
  return {
    name,
    channel: "@chan_main",
    urls: [`https://feeds.example/${name}.xml`],
    cron: "*/5 * * * *",
    type: "rss",
    rhash: "",
    proxy: null,
    linkText: "Link",
    firstTimeLimit: -1,
    ...partial,
  };
}

/** A reader serving, per first URL, whatever the test put there (an error is thrown). */
export class StubReader {
  feeds = new Map<string, Entry[] | Error>();
  calls: ReadOptions[] = [];
  /** Resolved before answering a URL, to hold a read back until the test says. */
  gates = new Map<string, Promise<void>>();
  active = 0;
  maxActive = 0;
  /** Called as each read starts, before it waits at its gate. */
  onCall: ((calls: number) => void) | null = null;

  read = async (options: ReadOptions): Promise<FeedRead> => {
    this.calls.push(options);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    this.onCall?.(this.calls.length);
    try {
      const gate = this.gates.get(options.urls[0]);
      if (gate) {
        // Like the real reader, give up when the run is stopped.
        await new Promise<void>((resolve, reject) => {
          options.signal?.addEventListener("abort", () => reject(options.signal!.reason));
          gate.then(resolve);
        });
      }
      const content = this.feeds.get(options.urls[0]);
      if (content === undefined) throw new Error(`${options.urls[0]}: HTTP 404`);
      if (content instanceof Error) throw content;
      return {
        entries: content,
        warnings: [],
        validators: new Map(
          options.urls.map((
            u,
          ) => [u, { etag: `"${content.length}"`, lastModified: null, bodyHash: null }]),
        ),
        notModified: [],
        title: null,
        format: "rss2",
      };
    } finally {
      this.active--;
    }
  };
}

/** An outbox that records messages; `failOn` makes it throw for a chosen message. */
export class RecordingOutbox implements Outbox {
  sent: { chat: string; html: string }[] = [];
  failOn: ((chat: string, message: Message, index: number) => Error | null) | null = null;

  send(chat: string, message: Message): Promise<Sent> {
    const failure = this.failOn?.(chat, message, this.sent.length);
    if (failure) return Promise.reject(failure);
    this.sent.push({ chat, html: message.html });
    return Promise.resolve({ messageId: this.sent.length, chat });
  }

  titles(chat?: string): string[] {
    return this.sent
      .filter((m) => chat === undefined || m.chat === chat)
      .map((m) => /<b>Title ([^<]*)<\/b>/.exec(m.html)?.[1] ?? m.html);
  }
}

export function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    logger: createLogger({
      format: "text",
      color: false,
      level: "debug",
      write: (l) => lines.push(l),
    }),
  };
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
