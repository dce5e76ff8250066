/** A sliding-window limit: at most `count` sends in any `windowMs`. */
export interface Limit {
  count: number;
  windowMs: number;
}

export interface RateLimits {
  perChat: Limit;
  global: Limit;
  /**
   * Added to every window. We count when requests leave, the server when they arrive, and
   * network jitter can bring two arrivals closer than their departures were.
   */
  marginMs: number;
}

/** Telegram's published limits: 20 messages a minute per group/channel, 30 a second overall. */
export const TELEGRAM_LIMITS: RateLimits = {
  perChat: { count: 20, windowMs: 60_000 },
  global: { count: 30, windowMs: 1_000 },
  marginMs: 50,
};

export type Reservation =
  /** A send slot is booked: send at `at`. */
  | { reserved: true; at: number }
  /** The chat is not ready: ask again at `retryAt` (nothing was booked). */
  | { reserved: false; retryAt: number };

/**
 * Decides when each message may go out so that no limit is ever exceeded. Pure bookkeeping on
 * times the caller passes in (milliseconds on any monotonic clock), so tests drive it without
 * waiting. A chat's slot is booked only once the chat itself is ready, which keeps the global
 * log in time order: a chat that must wait a minute never holds a global slot meanwhile.
 */
export class Pacer {
  readonly #chats = new Map<string, number[]>();
  readonly #blocked = new Map<string, number>();
  readonly #global: number[] = [];
  /** The overall count this process may use: all of it, or its share (see shareGlobal). */
  #globalCount: number;

  constructor(readonly limits: RateLimits = TELEGRAM_LIMITS) {
    this.#globalCount = limits.global.count;
  }

  /**
   * Processes sharing one bot (several `forward`s on one db_url) split the overall limit
   * evenly: each sends at most floor(30 / processes) a second, so together they stay within it
   * without a round trip per message.
   */
  shareGlobal(processes: number): void {
    this.#globalCount = Math.max(1, Math.floor(this.limits.global.count / Math.max(1, processes)));
  }

  /**
   * Replaces what the pacer knows of `chat`'s recent sends with `times` (on this pacer's
   * monotonic clock, oldest first): the sends the state recorded in the last minute, so a
   * process that starts, or takes a channel over from another, counts what Telegram counts.
   * They are added to the overall log too.
   */
  seed(chat: string, times: readonly number[]): void {
    const count = this.limits.perChat.count;
    this.#chats.set(chat, times.slice(-count));
    const g = [...this.#global, ...times].sort((a, b) => a - b);
    this.#global.splice(0, this.#global.length, ...g.slice(-this.limits.global.count));
  }

  /** The earliest time ≥ now at which `chat` is within its own limit and not blocked. */
  chatReadyAt(chat: string, now: number): number {
    const { count, windowMs } = this.limits.perChat;
    const log = this.#chats.get(chat) ?? [];
    let ready = now;
    if (log.length >= count) {
      ready = Math.max(ready, log[log.length - count] + windowMs + this.limits.marginMs);
    }
    return Math.max(ready, this.#blocked.get(chat) ?? ready);
  }

  /** Books the next send for `chat` if it is ready at `now`. */
  reserve(chat: string, now: number): Reservation {
    const chatReady = this.chatReadyAt(chat, now);
    if (chatReady > now) return { reserved: false, retryAt: chatReady };
    const { windowMs } = this.limits.global;
    const count = this.#globalCount;
    const g = this.#global;
    const at = g.length >= count
      ? Math.max(now, g[g.length - count] + windowMs + this.limits.marginMs)
      : now;
    g.push(at);
    if (g.length > this.limits.global.count) g.shift();
    const log = this.#chats.get(chat) ?? [];
    log.push(at);
    if (log.length > this.limits.perChat.count) log.shift();
    this.#chats.set(chat, log);
    return { reserved: true, at };
  }

  /**
   * Gives back a booked slot the server did not count (the send was refused with 429, or the
   * chat had moved), so a retry does not eat into the chat's allowance twice.
   */
  cancel(chat: string, at: number): void {
    const drop = (log: number[] | undefined) => {
      const i = log?.lastIndexOf(at) ?? -1;
      if (i !== -1) log!.splice(i, 1);
    };
    drop(this.#chats.get(chat));
    drop(this.#global);
  }

  /**
   * Moves a booked slot to `doneAt`, when its request got its answer: the server counts a
   * message when it arrives, some time between the request leaving and the answer coming
   * back, so the window of the 21st is counted from the latest the 1st can have arrived.
   */
  settle(chat: string, at: number, doneAt: number): void {
    if (doneAt <= at) return;
    const move = (log: number[] | undefined) => {
      const i = log?.lastIndexOf(at) ?? -1;
      if (i === -1) return;
      log!.splice(i, 1);
      let j = log!.length;
      while (j > 0 && log![j - 1] > doneAt) j--;
      log!.splice(j, 0, doneAt);
    };
    move(this.#chats.get(chat));
    move(this.#global);
  }

  /** Holds `chat` back until `until` (a 429's retry_after). */
  block(chat: string, until: number): void {
    this.#blocked.set(chat, Math.max(until, this.#blocked.get(chat) ?? 0));
  }

  /** Until when a 429 holds `chat` back (0 when it is not held). */
  blockedUntil(chat: string): number {
    return this.#blocked.get(chat) ?? 0;
  }

  /** Moves a chat's history to its new id after `migrate_to_chat_id`. */
  rename(from: string, to: string): void {
    const log = this.#chats.get(from);
    if (log) this.#chats.set(to, log);
  }
}

/**
 * Seeds `pacer` with the sends the state recorded, each `agoMs` before `monoNow` (the pacer's
 * clock, read when the database's answer came back: every send is placed as late as it can
 * have been). Only the chats in `chats` when given (a takeover), else every chat found (a
 * start). Each chat seeded also counts one send more, at `monoNow`: the message a previous
 * holder may have had under way when it died, paused or lost the database, which Telegram
 * counts and the state never recorded.
 */
export function seedPacer(
  pacer: Pacer,
  sends: readonly { chat: string; agoMs: number }[],
  monoNow: number,
  chats?: ReadonlySet<string>,
): number {
  const byChat = new Map<string, number[]>();
  for (const chat of chats ?? []) byChat.set(chat, []);
  for (const { chat, agoMs } of sends) {
    if (chats && !chats.has(chat)) continue;
    const list = byChat.get(chat) ?? [];
    list.push(monoNow - Math.max(0, agoMs));
    byChat.set(chat, list);
  }
  let seeded = 0;
  for (const [chat, times] of byChat) {
    seeded += times.length;
    times.push(monoNow);
    pacer.seed(chat, times.sort((a, b) => a - b));
  }
  return seeded;
}
