/** A delivery failed. Messages are one line and never contain the bot token. */
export class MessengerError extends Error {
  override name = "MessengerError";
}

/**
 * The message was not sent because this process could no longer be sure it alone sends to the
 * chat (its channel lease ran out, or could not be renewed in time): another process may hold
 * the channel now. Nothing went out; the entry stays unsent for whoever holds the channel.
 */
export class NotHeldError extends MessengerError {
  override name = "NotHeldError";
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

/**
 * The messenger refused this message for its content (a 400 such as "can't parse entities",
 * "message is too long", "URL host is empty"): another message to the same chat may well go,
 * so the feed tries the entry's plainest form and then goes on without it.
 */
export class MessageRefusedError extends MessengerError {
  override name = "MessageRefusedError";
  constructor(message: string, readonly chat: string, readonly description: string) {
    super(message);
  }
}

/**
 * Descriptions of 400s about the message itself, as the Bot API words them. Anything else
 * (chat not found, not enough rights, kicked, CHAT_WRITE_FORBIDDEN, not a member, and any 400
 * not known here) is the chat's: the feed fails and keeps its entries, which is the safe side.
 */
const MESSAGE_LEVEL = new RegExp(
  [
    "can't parse entities",
    "can't find end of",
    "unsupported start tag",
    "unexpected end tag",
    "message is too long",
    "message text is empty",
    "text must be non-empty",
    "URL host is empty",
    "wrong HTTP URL",
    "wrong URL host",
    "unsupported URL protocol",
    "ENTITY_TEXT_INVALID",
    "ENTITIES_TOO_LONG",
    "MESSAGE_TOO_LONG",
    "URL_INVALID",
    "TEXTURL_INVALID",
    "BUTTON_URL_INVALID",
  ].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
  "i",
);

const CHAT_LEVEL =
  /chat not found|thread not found|TOPIC_|not enough rights|bot was kicked|bot is not a member|CHAT_WRITE_FORBIDDEN|CHAT_ADMIN_REQUIRED|need administrator rights|have no rights|PEER_ID_INVALID|chat_id is empty|group chat was deactivated|bot was blocked/i;

/** Whether a 400's description is about the message, not the chat. */
export function isMessageRefusal(status: number, description: string): boolean {
  return status === 400 && !CHAT_LEVEL.test(description) && MESSAGE_LEVEL.test(description);
}
