/**
 * The read-only queries behind `courier status`: each feed's latest run and how many entries
 * it has sent. The database is opened with SQLite's `mode=ro` (the engine itself refuses every
 * write), never created, migrated or locked, so this works beside a running `forward` or
 * `once`: in WAL mode a reader neither waits for the writer nor holds it up.
 */
import Database from "libsql";
import { dbPath } from "./db.ts";
import { SCHEMA_VERSION } from "./migrations.ts";

/** The database cannot be read for a status report; the message names the file. */
export class StatusReadError extends Error {
  override name = "StatusReadError";
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

/** A feed's latest `runs` row. */
export interface RecordedRun {
  startedAt: Date;
  finishedAt: Date;
  /** As recorded: "ok" or "failed" (a later schema may add others). */
  outcome: string;
  error: string | null;
  /** How many consecutive no-op runs the row stands for (schema 3); 1 before that. */
  runCount: number;
}

/** An entry the messenger refused in every form (schema 5): recorded, never posted. */
export interface RefusedEntry {
  id: string;
  title: string;
  link: string | null;
  /** When it was refused (its row's seen_at: a refused entry is recorded when refused). */
  at: Date;
}

export interface FeedRecord {
  /** null: the feed never ran (as far as runs are kept). */
  lastRun: RecordedRun | null;
  /** Entries with status 'sent'. */
  sentTotal: number;
  /** Of those, sent at or after `since`. */
  sentSince: number;
  /** Entries with status 'refused'. */
  refusedTotal: number;
  /** The latest of them, newest first, at most REFUSED_SHOWN. */
  refused: RefusedEntry[];
  /** Entries with status 'filtered' (schema 6): dropped by the feed's filter. */
  filteredTotal: number;
}

/** How many of a feed's refused entries status lists (the count says how many in all). */
export const REFUSED_SHOWN = 5;

const NEVER: FeedRecord = {
  lastRun: null,
  sentTotal: 0,
  sentSince: 0,
  refusedTotal: 0,
  refused: [],
  filteredTotal: 0,
};

/** An SQLite URI for reading `path` only; `%`, `?` and `#` in the path are escaped. */
function readOnlyUri(path: string): string {
  const encoded = path.replace(
    /[%?#]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).padStart(2, "0"),
  );
  return `file:${encoded}?mode=ro`;
}

/**
 * What the database in `dbDir` records for each of `feeds`, read in one snapshot; feeds it
 * knows nothing about get no runs and no entries. A database that does not exist yet (nothing
 * ran) yields null. A newer schema than this courier's is refused (exit code 2); an older one
 * is read as it is, since only version 1 columns are needed.
 */
export function readFeedRecords(
  dbDir: string,
  feeds: readonly string[],
  since: Date,
): Map<string, FeedRecord> | null {
  const path = dbPath(dbDir);
  try {
    Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new StatusReadError(`cannot read database ${path}: ${(error as Error).message}`, 1);
  }
  let db: InstanceType<typeof Database>;
  try {
    db = new Database(readOnlyUri(path));
  } catch (error) {
    throw new StatusReadError(`cannot open database ${path}: ${reason(error)}`, 1);
  }
  try {
    // A writer checkpointing (or starting up) holds its lock only briefly.
    db.exec("PRAGMA busy_timeout = 5000");
    // One read transaction: every feed's figures come from the same moment.
    db.exec("BEGIN");
    try {
      return readAll(db, path, feeds, since);
    } finally {
      db.exec("COMMIT");
    }
  } catch (error) {
    if (error instanceof StatusReadError) throw error;
    throw new StatusReadError(`cannot read database ${path}: ${reason(error)}`, 1);
  } finally {
    db.close();
  }
}

function readAll(
  db: InstanceType<typeof Database>,
  path: string,
  feeds: readonly string[],
  since: Date,
): Map<string, FeedRecord> {
  const version = Number((db.prepare("PRAGMA user_version").raw().get() as unknown[])[0]);
  if (version > SCHEMA_VERSION) {
    throw new StatusReadError(
      `database ${path} has schema version ${version}, newer than this courier ` +
        `understands (${SCHEMA_VERSION}); upgrade courier`,
      2,
    );
  }
  const runs = columnsOf(db, "runs");
  const entries = columnsOf(db, "entries");
  const readsRuns = runs.size > 0;
  const readsEntries = entries.size > 0;
  // Version 0 with no tables is a file created by a run that stopped before migrating.
  const missing = [
    ...(readsRuns
      ? need(runs, "runs", ["feed", "started_at", "finished_at", "outcome", "error"])
      : []),
    ...(readsEntries ? need(entries, "entries", ["feed", "status", "sent_at"]) : []),
  ];
  if (missing.length > 0) {
    throw new StatusReadError(
      `database ${path} (schema version ${version}) lacks ${missing.join(", ")}; ` +
        `run courier once to migrate it to ${SCHEMA_VERSION}`,
      1,
    );
  }
  // Rows of one feed never overlap in time, so the latest start is the latest run (ids are
  // not in run order: buffered no-op rows are written later). runs_by_feed covers the order.
  const lastRun = readsRuns
    ? db.prepare(
      `SELECT started_at, finished_at, outcome, error,
         ${runs.has("run_count") ? "run_count" : "1"}
       FROM runs WHERE feed = ? ORDER BY started_at DESC, id DESC LIMIT 1`,
    ).raw()
    : null;
  // sent_at is ISO 8601 UTC with milliseconds throughout: text order is time order. One pass
  // over the feed's rows counts every kind (a database before schema 5 has no 'refused', one
  // before 6 no 'filtered').
  const sent = readsEntries
    ? db.prepare(
      `SELECT count(CASE WHEN status = 'sent' THEN 1 END),
         count(CASE WHEN status = 'sent' AND sent_at >= ?1 THEN 1 END),
         count(CASE WHEN status = 'refused' THEN 1 END),
         count(CASE WHEN status = 'filtered' THEN 1 END)
       FROM entries WHERE feed = ?2 AND status IN ('sent', 'refused', 'filtered')`,
    ).raw()
    : null;
  const refusedRows = readsEntries && entries.has("seen_at")
    ? db.prepare(
      `SELECT entry_id, title, link, seen_at FROM entries
       WHERE feed = ? AND status = 'refused' ORDER BY seen_at DESC, entry_id LIMIT ${REFUSED_SHOWN}`,
    ).raw()
    : null;
  const sinceText = since.toISOString();
  const records = new Map<string, FeedRecord>();
  for (const feed of feeds) {
    const run = lastRun?.get(feed) as unknown[] | undefined;
    const counts = sent?.get(sinceText, feed) as unknown[] | undefined;
    if (run === undefined && counts === undefined) {
      records.set(feed, NEVER);
      continue;
    }
    const refusedTotal = Number(counts?.[2] ?? 0);
    const refused = refusedTotal > 0 && refusedRows
      ? (refusedRows.all(feed) as unknown[][]).map((row) => ({
        id: String(row[0]),
        title: String(row[1] ?? ""),
        link: row[2] === null ? null : String(row[2]),
        at: new Date(String(row[3])),
      }))
      : [];
    records.set(feed, {
      lastRun: run === undefined ? null : {
        startedAt: new Date(String(run[0])),
        finishedAt: new Date(String(run[1])),
        outcome: String(run[2]),
        error: run[3] === null ? null : String(run[3]),
        runCount: Number(run[4]),
      },
      sentTotal: Number(counts?.[0] ?? 0),
      sentSince: Number(counts?.[1] ?? 0),
      refusedTotal,
      refused,
      filteredTotal: Number(counts?.[3] ?? 0),
    });
  }
  return records;
}

/** The column names of `table`; empty when there is no such table. */
function columnsOf(db: InstanceType<typeof Database>, table: string): Set<string> {
  const rows = db.prepare(`SELECT name FROM pragma_table_info(?)`).raw().all(table);
  return new Set(rows.map((row) => String((row as unknown[])[0])));
}

function need(have: Set<string>, table: string, columns: string[]): string[] {
  return columns.filter((c) => !have.has(c)).map((c) => `${table}.${c}`);
}

/** SQLite's own words, without the driver's wrapping around them. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0];
}
