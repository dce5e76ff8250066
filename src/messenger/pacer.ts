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

  constructor(readonly limits: RateLimits = TELEGRAM_LIMITS) {}

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
    const { count, windowMs } = this.limits.global;
    const g = this.#global;
    const at = g.length >= count
      ? Math.max(now, g[g.length - count] + windowMs + this.limits.marginMs)
      : now;
    g.push(at);
    if (g.length > count) g.shift();
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
