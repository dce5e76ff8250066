/**
 * Bursts of identical warnings as one line with a count. Starting 5,000 new feeds, or a
 * messenger outage, made thousands of feeds say the same thing within seconds (2,391 lines of
 * one warning): a reader needs the first, how many, and which feeds, not every copy.
 *
 * The first warning of a message goes out at once, whole. Later ones with the same message
 * within `windowMs` are only counted; when the window ends, one line with the message,
 * `repeated=N` and the first feed names says what was held back. A warning after that starts
 * a new burst. Debug, info and error lines pass untouched: an error is one line per failed run,
 * with its own feed, URL and reason.
 */
import type { Clock, TimerId } from "../time/clock.ts";
import type { Logger } from "../log/logger.ts";

/** How many feed names a line that stands for many lists. */
export const NAMES_SHOWN = 10;

/**
 * The first NAMES_SHOWN of `names`, with "…" when there are more (`total`, default all of
 * them): a line that stands for thousands of feeds names a few, not all.
 */
export function someNames(names: readonly string[], total = names.length): string {
  const shown = names.slice(0, NAMES_SHOWN).join(",");
  return total > Math.min(names.length, NAMES_SHOWN) ? `${shown},…` : shown;
}

/** What a window held back of one message. */
interface Burst {
  repeated: number;
  feeds: string[];
  timer: TimerId;
}

export interface BurstLogger extends Logger {
  /** Writes every summary still held and stops the timers (at the end of the process). */
  flush(): void;
}

export function burstLogger(inner: Logger, clock: Clock, windowMs = 10_000): BurstLogger {
  const bursts = new Map<string, Burst>();
  const close = (message: string) => {
    const burst = bursts.get(message);
    if (burst === undefined) return;
    bursts.delete(message);
    clock.clearTimeout(burst.timer);
    if (burst.repeated === 0) return;
    inner.warn(message, {
      repeated: burst.repeated,
      ...(burst.feeds.length === 0 ? {} : { feeds: someNames(burst.feeds, burst.repeated) }),
      within_s: windowMs / 1000,
    });
  };
  return {
    debug: (m, f) => inner.debug(m, f),
    info: (m, f) => inner.info(m, f),
    error: (m, f) => inner.error(m, f),
    warn(message, fields) {
      const burst = bursts.get(message);
      if (burst !== undefined) {
        burst.repeated++;
        const feed = fields?.feed;
        if (typeof feed === "string" && burst.feeds.length < NAMES_SHOWN) burst.feeds.push(feed);
        return;
      }
      inner.warn(message, fields);
      const timer = clock.setTimeout(() => close(message), windowMs);
      bursts.set(message, { repeated: 0, feeds: [], timer });
    },
    flush() {
      for (const message of [...bursts.keys()]) close(message);
    },
  };
}
