import type { Entry } from "./entry.ts";

function dateOf(entry: Entry): number | null {
  const date = entry.published ?? entry.updated;
  return date ? date.getTime() : null;
}

/**
 * Merges the entries of every URL of one feed into the order they are sent in.
 *
 * Each list is in document order, and feeds list newest first, so each is reversed; lists are
 * concatenated in URL order; an entry whose id or link was already seen is dropped (the first
 * sighting wins). Then dated entries are sorted oldest first into the positions dated entries
 * occupy, while undated entries keep theirs: with no dates at all this is reverse document
 * order, with dates everywhere it is date order, and ties keep document order reversed.
 */
export function orderEntries(lists: readonly (readonly Entry[])[]): Entry[] {
  const ids = new Set<string>();
  const links = new Set<string>();
  const merged: Entry[] = [];
  for (const list of lists) {
    for (let i = list.length - 1; i >= 0; i--) {
      const entry = list[i];
      if (ids.has(entry.id) || (entry.link !== null && links.has(entry.link))) continue;
      ids.add(entry.id);
      if (entry.link !== null) links.add(entry.link);
      merged.push(entry);
    }
  }

  const slots: number[] = [];
  const dated: { entry: Entry; time: number; seq: number }[] = [];
  merged.forEach((entry, index) => {
    const time = dateOf(entry);
    if (time !== null) {
      slots.push(index);
      dated.push({ entry, time, seq: index });
    }
  });
  dated.sort((a, b) => a.time - b.time || a.seq - b.seq);
  dated.forEach((d, k) => {
    merged[slots[k]] = d.entry;
  });
  return merged;
}
