import type { Entry } from "../model/entry.ts";

/**
 * Splits a feed's entries (oldest first) at its first sighting: with limit N ≥ 0 the newest N
 * are sent, oldest first, and the others are only recorded as seen; a negative limit (-1)
 * sends everything.
 */
export function firstSighting(entries: readonly Entry[], limit: number): {
  send: Entry[];
  skip: Entry[];
} {
  if (limit < 0 || entries.length <= limit) return { send: [...entries], skip: [] };
  const cut = entries.length - limit;
  return { send: entries.slice(cut), skip: entries.slice(0, cut) };
}
