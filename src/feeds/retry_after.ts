import { type Clock, realClock } from "../time/clock.ts";

/**
 * The longest pause a server's Retry-After can impose: a feed is never silenced for more than a
 * day by one answer (a typo'd or hostile header could otherwise stop it for years).
 */
export const MAX_PAUSE_MS = 24 * 60 * 60 * 1000;

/**
 * The time (ms since the epoch) a Retry-After value (RFC 9110 §10.2.3) asks the client to wait
 * for: delay-seconds (digits only) from `now`, or an HTTP-date. Null when there is nothing to
 * wait for: no header, a value that is neither, or a time already past. Capped at MAX_PAUSE_MS.
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  const text = value?.trim() ?? "";
  if (text === "") return null;
  let until: number;
  if (/^\d+$/.test(text)) until = now + Number(text) * 1000;
  else {
    // An HTTP-date names its day of the week and says GMT, whatever its form (IMF-fixdate,
    // RFC 850, asctime): anything else that Date.parse would take is not one.
    if (!/^[A-Za-z]{3}/.test(text)) return null;
    until = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
    if (Number.isNaN(until)) return null;
  }
  if (until <= now) return null;
  return Math.min(until, now + MAX_PAUSE_MS);
}

/**
 * The servers that asked not to be asked again before some time (a 429 or 503 with
 * Retry-After), keyed by origin (scheme, host, port): a rate limit or an outage is the
 * server's, not one URL's, so the other feeds on that server wait too, while feeds on other
 * servers are not affected. One per process (or per test), on the wall clock, since an
 * HTTP-date is wall time.
 */
export class ServerPauses {
  readonly #until = new Map<string, number>();

  constructor(readonly clock: Clock = realClock) {}

  /** The time before which `url`'s server must not be asked, or null when it may be. */
  until(url: string): number | null {
    // The usual case, without parsing the URL on every request.
    if (this.#until.size === 0) return null;
    const origin = new URL(url).origin;
    const until = this.#until.get(origin);
    if (until === undefined) return null;
    if (until > this.clock.now()) return until;
    this.#until.delete(origin);
    return null;
  }

  /** Notes that `url`'s server is not to be asked before `until` (the later time wins). */
  pause(url: string, until: number): void {
    const origin = new URL(url).origin;
    const now = this.clock.now();
    // Expired pauses go as new ones come, so the map holds only servers still paused.
    for (const [key, at] of this.#until) if (at <= now) this.#until.delete(key);
    this.#until.set(origin, Math.max(until, this.#until.get(origin) ?? 0));
  }

  /** Servers paused now (or whose pause has passed and was not looked at since). */
  get size(): number {
    return this.#until.size;
  }
}

/** The process's pauses, for every caller that does not bring its own. */
export const processPauses = new ServerPauses();
