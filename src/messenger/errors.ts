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
