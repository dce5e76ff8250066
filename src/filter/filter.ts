/**
 * A feed's filter: which entries are posted. Pure: an entry and a compiled filter in, a verdict
 * out. An entry is kept when it matches at least one `include` (or there is none) and no
 * `exclude`, each item tried on the texts of the filter's fields.
 */
import type { Entry } from "../model/entry.ts";
import type { Pattern } from "./pattern.ts";

/** The parts of an entry a filter may look at. */
export const FILTER_FIELDS = ["title", "categories", "summary"] as const;

export type FilterField = typeof FILTER_FIELDS[number];

/** Matched when a filter names no fields: what an entry is about, not its whole text. */
export const DEFAULT_FILTER_FIELDS: readonly FilterField[] = ["title", "categories"];

export interface EntryFilter {
  include: Pattern[];
  exclude: Pattern[];
  fields: readonly FilterField[];
}

function textsOf(entry: Entry, field: FilterField): readonly string[] {
  switch (field) {
    case "title":
      return [entry.title];
    case "categories":
      return entry.categories ?? [];
    case "summary":
      return [entry.summary];
  }
}

/** The first field of `fields` in which `pattern` matches, or null. */
function matchIn(entry: Entry, pattern: Pattern, fields: readonly FilterField[]): string | null {
  for (const field of fields) {
    if (textsOf(entry, field).some((text) => pattern.test(text))) return field;
  }
  return null;
}

/** null when the filter keeps the entry, else why it drops it (for the debug log and preview). */
export function judge(filter: EntryFilter, entry: Entry): string | null {
  for (const pattern of filter.exclude) {
    const field = matchIn(entry, pattern, filter.fields);
    // Quoted as written: a log line escapes it once more (logfmt), preview shows it as is.
    if (field !== null) return `excluded by "${pattern.source}" in ${field}`;
  }
  if (filter.include.length === 0) return null;
  for (const pattern of filter.include) {
    if (matchIn(entry, pattern, filter.fields) !== null) return null;
  }
  return `matches no include in ${filter.fields.join(", ")}`;
}

/** The entries a filter keeps, in order, and those it drops with why. */
export function partition(
  filter: EntryFilter,
  entries: readonly Entry[],
): { kept: Entry[]; dropped: { entry: Entry; reason: string }[] } {
  const kept: Entry[] = [];
  const dropped: { entry: Entry; reason: string }[] = [];
  for (const entry of entries) {
    const reason = judge(filter, entry);
    if (reason === null) kept.push(entry);
    else dropped.push({ entry, reason });
  }
  return { kept, dropped };
}
