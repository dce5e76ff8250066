import type { Entry } from "../model/entry.ts";

/**
 * A stable 64-bit hash (two 32-bit FNV-1a style lanes) as 16 hex digits. Not cryptographic:
 * it only has to give an entry without guid or link the same id on every run.
 */
export function stableHash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b) ^ Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0x85ebca6b) ^ Math.imul(h1 ^ (h1 >>> 13), 0xc2b2ae35);
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}

/** An entry whose id is its link for want of a guid / atom:id, and its enclosure's URL. */
export interface LinkFallback {
  index: number;
  enclosure: string | null;
}

/**
 * Gives distinct ids to the entries of one document that fell back to the same link but differ
 * (a podcast whose episodes have no guid and all link to the show's page): by the enclosure's
 * URL, else by a hash of link, title and date. The last of them in document order keeps the
 * link as its id: that one is what courier recorded before telling them apart (merging keeps
 * the oldest, the last), so nothing already posted is posted again. Entries alike in title,
 * date and enclosure stay one entry.
 */
export function separateSharedLinks(entries: Entry[], fallbacks: readonly LinkFallback[]): void {
  if (fallbacks.length < 2) return;
  const byLink = new Map<string, LinkFallback[]>();
  for (const fallback of fallbacks) {
    const link = entries[fallback.index].link!;
    const group = byLink.get(link);
    if (group) group.push(fallback);
    else byLink.set(link, [fallback]);
  }
  for (const [link, group] of byLink) {
    if (group.length < 2) continue;
    const keeper = group[group.length - 1];
    const kept = sameness(entries[keeper.index], keeper.enclosure);
    for (let k = 0; k < group.length - 1; k++) {
      const { index, enclosure } = group[k];
      const entry = entries[index];
      if (sameness(entry, enclosure) === kept) continue;
      entry.id = enclosure ?? `${link}#${stableHash(`${entry.title}\n${dateText(entry)}`)}`;
    }
  }
}

function dateText(entry: Entry): string {
  return entry.published?.toISOString() ?? "";
}

/** What tells two entries with one link apart. */
function sameness(entry: Entry, enclosure: string | null): string {
  return `${entry.title}\n${dateText(entry)}\n${enclosure ?? ""}`;
}

/** The id of an entry that has neither guid/atom:id nor link. */
export function contentId(title: string, content: string): string {
  return `hash:${stableHash(`${title}\n${content}`)}`;
}
