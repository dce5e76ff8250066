import type { Entry } from "../model/entry.ts";

/**
 * ISO 8601 of a time, remembering the last one converted: a steady-state run records two
 * times for each of hundreds of feeds, and most share their millisecond with the same time of
 * the feed before (toISOString was a visible share of such a run's CPU). One converter per
 * kind of time, so start and finish times do not evict each other.
 */
export function isoConverter(): (d: Date) => string {
  let time = NaN;
  let text = "";
  return (d) => {
    const t = d.getTime();
    if (t !== time) {
      text = d.toISOString();
      time = t;
    }
    return text;
  };
}

/** For times that are neither a run's start nor its finish. */
export const iso = isoConverter();

/** An entry's date as stored: published, else updated, else null. */
export function dateOf(entry: Entry): string | null {
  const d = entry.published ?? entry.updated;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}
