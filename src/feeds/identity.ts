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
 *
 * An enclosure tells entries apart only when it is theirs alone: items whose link came from a
 * shared enclosure (no link of their own), or that share the show's link and one enclosure (a
 * live stream's URL), would merge again under it. Of those, the last in document order keeps
 * the enclosure (what courier recorded before), the others get a hash of link, title, date and
 * enclosure.
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
  /** Entries given their enclosure as id, by enclosure, in document order. */
  const byEnclosure = new Map<string, LinkFallback[]>();
  for (const [link, group] of byLink) {
    if (group.length < 2) continue;
    const keeper = group[group.length - 1];
    const kept = sameness(entries[keeper.index], keeper.enclosure);
    for (let k = 0; k < group.length - 1; k++) {
      const fallback = group[k];
      const { index, enclosure } = fallback;
      const entry = entries[index];
      if (sameness(entry, enclosure) === kept) continue;
      if (enclosure === null) {
        entry.id = `${link}#${stableHash(`${entry.title}\n${dateText(entry)}`)}`;
      } else if (enclosure === link) entry.id = hashedId(entry, link, enclosure);
      else {
        entry.id = enclosure;
        const sharing = byEnclosure.get(enclosure);
        if (sharing) sharing.push(fallback);
        else byEnclosure.set(enclosure, [fallback]);
      }
    }
  }
  for (const [enclosure, sharing] of byEnclosure) {
    if (sharing.length < 2) continue;
    const last = sharing[sharing.length - 1];
    const lastSameness = sameness(entries[last.index], enclosure);
    for (let k = 0; k < sharing.length - 1; k++) {
      const entry = entries[sharing[k].index];
      if (sameness(entry, enclosure) === lastSameness) continue;
      entry.id = hashedId(entry, entry.link!, enclosure);
    }
  }
}

/** An id for an entry its link and enclosure do not tell apart. */
function hashedId(entry: Entry, link: string, enclosure: string): string {
  return `${link}#${stableHash(sameness(entry, enclosure))}`;
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
