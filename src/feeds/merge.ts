import type { Entry } from "../model/entry.ts";

function dateOf(entry: Entry): number | null {
  const date = entry.published ?? entry.updated;
  return date ? date.getTime() : null;
}

/**
 * Whether the document gave this entry an id of its own (guid / atom:id) rather than the link
 * or content hash identity falls back to. A guid equal to the link counts as none: such an
 * entry merges by id with any other carrying that link anyway.
 */
function hasOwnId(entry: Entry): boolean {
  return entry.id !== entry.link && !entry.id.startsWith("hash:");
}

/**
 * Merges the entries of every URL of one feed into the order they are sent in.
 *
 * Each list is in document order, and feeds list newest first, so each is reversed; lists are
 * concatenated in URL order; an entry whose id was already seen is dropped (the first sighting
 * wins). A shared link drops an entry only when the two come from different URLs (mirrors give
 * one post different ids) or neither has an id of its own: within one document, entries with
 * different ids are different entries, as a podcast's episodes may all link to the show's page.
 * Then dated entries are sorted oldest first into the positions dated entries occupy, while
 * undated entries keep theirs: with no dates at all this is reverse document order, with dates
 * everywhere it is date order, and ties keep document order reversed.
 */
export function orderEntries(lists: readonly (readonly Entry[])[]): Entry[] {
  const ids = new Set<string>();
  /**
   * For each link, the lists it was seen in, and those where an entry without own id had it.
   * Arrays, not sets: they hold one or two numbers, and a large feed has a link per entry.
   */
  const links = new Map<string, { lists: number[]; anonymousIn: number[] }>();
  const merged: Entry[] = [];
  // With one list, a link can only drop an entry without own id that follows another such
  // entry with it, so only those are recorded: a large feed with guids hashes no links at all.
  const everyLink = lists.length > 1;
  lists.forEach((list, listIndex) => {
    for (let i = list.length - 1; i >= 0; i--) {
      const entry = list[i];
      if (ids.has(entry.id)) continue;
      const own = hasOwnId(entry);
      const link = everyLink || !own ? entry.link : null;
      const seen = link === null ? undefined : links.get(link);
      if (seen) {
        const elsewhere = seen.lists.length > (seen.lists.includes(listIndex) ? 1 : 0);
        if (elsewhere || (!own && seen.anonymousIn.includes(listIndex))) continue;
      }
      ids.add(entry.id);
      if (link !== null) {
        if (seen) {
          if (!seen.lists.includes(listIndex)) seen.lists.push(listIndex);
          if (!own && !seen.anonymousIn.includes(listIndex)) seen.anonymousIn.push(listIndex);
        } else links.set(link, { lists: [listIndex], anonymousIn: own ? [] : [listIndex] });
      }
      merged.push(entry);
    }
  });

  // Dated entries sorted into the slots dated entries hold; the sort is stable, so ties keep
  // their order.
  const slots: number[] = [];
  const times: number[] = [];
  for (let index = 0; index < merged.length; index++) {
    const time = dateOf(merged[index]);
    if (time === null) continue;
    slots.push(index);
    times.push(time);
  }
  const dated = times.map((_, k) => k).sort((a, b) => times[a] - times[b])
    .map((k) => merged[slots[k]]);
  for (let k = 0; k < dated.length; k++) merged[slots[k]] = dated[k];
  return merged;
}
