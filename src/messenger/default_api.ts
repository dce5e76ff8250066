/**
 * Telegram's Bot API, where messages go unless told otherwise. A module of its own so that the
 * commands' help texts name it without loading the client (every `courier` start loads them).
 */
export const DEFAULT_MESSENGER_API = "https://api.telegram.org";
