/** Records the store tests hand to the Store: entries and run records with plain defaults. */
import type { Entry } from "../../src/model/entry.ts";
import type { RunRecord } from "../../src/store/db.ts";

/** An entry `id` with a link and title made from it, published at `published`. */
export function storeEntry(id: string, published: Date | null = null): Entry {
  return {
    id,
    link: `https://example.org/${id}`,
    title: `Title ${id}`,
    published,
    updated: null,
    summary: "",
  };
}

/**
 * A run record: by default a no-op run of `feed` (succeeded, nothing found or sent) that
 * started at 12:00:00 and finished at 12:00:01 on 2024-05-01; `more` overrides.
 */
export function runRecord(feed: string, more: Partial<RunRecord> = {}): RunRecord {
  return {
    feed,
    startedAt: new Date("2024-05-01T12:00:00Z"),
    finishedAt: new Date("2024-05-01T12:00:01Z"),
    outcome: "ok",
    fetched: 0,
    new: 0,
    sent: 0,
    failed: 0,
    skipped: 0,
    error: null,
    ...more,
  };
}
