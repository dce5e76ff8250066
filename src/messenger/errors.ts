/** A delivery failed. Messages are one line and never contain the bot token. */
export class MessengerError extends Error {
  override name = "MessengerError";
}

/**
 * The messenger refused the bot itself (401 Unauthorized, or 404 for an unknown bot or a wrong
 * API address): nothing can be delivered, so the whole run stops.
 */
export class MessengerFatalError extends MessengerError {
  override name = "MessengerFatalError";
}

/**
 * The messenger refused a message for this chat (400 "chat not found", 403 "bot is not a
 * member", …), or kept failing after the retries: the feed fails, its entries stay unsent.
 */
export class ChatError extends MessengerError {
  override name = "ChatError";
  constructor(message: string, readonly chat: string, readonly status: number | null) {
    super(message);
  }
}

/**
 * The messenger asked this chat to wait longer than the caller is willing to (a huge 429
 * `retry_after`): the feed fails for this run and keeps its entries; the chat stays blocked in
 * the pacer, so the chat's other feeds fail at once instead of waiting too.
 */
export class RateLimitedError extends ChatError {
  override name = "RateLimitedError";
  constructor(chat: string, readonly waitMs: number) {
    super(`rate limited by the messenger for ${describeWait(waitMs)}; entries kept`, chat, 429);
  }
}

/** "27 h 46 min", "3 min 20 s", "45 s": a wait as a person reads it. */
export function describeWait(ms: number): string {
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}
