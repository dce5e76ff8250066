/**
 * The read-only queries behind `courier status`: each feed's latest run, how many entries it
 * has sent, and with remote state who holds it. Through the store's own clients (sqlite.ts for
 * a file, remote.ts for a server), so status reads what the forwarder writes, the same way.
 */
import { Database } from "./sqlite.ts";
import type { SqlClient } from "./sql.ts";
import { describeFailure, StoreError, unreachableServer } from "./failure.ts";
import { dbPath, describeLocation, type StateLocation } from "./location.ts";
import { openRemote } from "./remote.ts";
import { newerSchema, SCHEMA_VERSION } from "./migrations.ts";
import { LeasesTable, type LeaseView } from "./leases.ts";

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

/**
 * What the state records for each of `feeds`, read-only: a local file is opened read-only
 * (the engine refuses every write), never created, migrated or locked, so this works beside a
 * running `forward` or `once` (in WAL mode a reader neither waits for the writer nor holds it
 * up); a server is read through the same client as the store's. A database that does not
 * exist yet (nothing ran) yields null. A newer schema than this courier's is refused (exit
 * code 2); an older one is read as it is, since only version 1 columns are needed. A few
 * queries for all feeds together: a handful of round trips to a server, whatever the count.
 */
export async function readFeedRecords(
  location: StateLocation,
  feeds: readonly string[],
  since: Date,
): Promise<StatusRecords | null> {
  const path = describeLocation(location);
  let db: SqlClient;
  if (location.kind === "file") {
    try {
      Deno.statSync(dbPath(location.dbDir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw new StoreError(`cannot read database ${path}: ${(error as Error).message}`);
    }
    try {
      db = Database.open(dbPath(location.dbDir), { readOnly: true });
    } catch (error) {
      throw new StoreError(`cannot open database ${path}: ${describeFailure(error)}`);
    }
  } else {
    db = await openRemote(location.url, location.authToken?.reveal());
  }
  const local = location.kind === "file";
  try {
    // A writer checkpointing (or starting up) holds its lock only briefly.
    if (local) await db.execute("PRAGMA busy_timeout = 5000");
    // One read transaction on a file: every feed's figures come from the same moment.
    if (local) await db.execute("BEGIN");
    try {
      return await readAll(db, path, feeds, since, !local);
    } finally {
      if (local) await db.execute("COMMIT");
    }
  } catch (error) {
    if (error instanceof StoreError) throw error;
    const unreachable = unreachableServer(path, error);
    if (unreachable !== null) throw new StoreError(unreachable);
    throw new StoreError(`cannot read database ${path}: ${describeFailure(error)}`);
  } finally {
    db.close();
  }
}

export interface StatusRecords extends Map<string, FeedRecord> {
  /** Each feed's last success as the database records it (authoritative), when it has the table. */
  lastSuccess?: Map<string, Date>;
  /** With remote state: channel → lease holder and ms until expiry on the server's clock. */
  leases?: Map<string, LeaseView>;
}

async function readAll(
  db: SqlClient,
  path: string,
  feeds: readonly string[],
  since: Date,
  remote: boolean,
): Promise<StatusRecords | null> {
  const version = Number((await db.execute("PRAGMA user_version")).rows[0]?.[0] ?? 0);
  const newer = newerSchema(path, version);
  if (newer !== null) throw new StoreError(newer, null, 2);
  // A server's database nothing has written to: as a local file not created yet.
  if (remote && version === 0) return null;
  const runs = await columnsOf(db, "runs");
  const entries = await columnsOf(db, "entries");
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
    throw new StoreError(
      `database ${path} (schema version ${version}) lacks ${missing.join(", ")}; ` +
        `run courier once to migrate it to ${SCHEMA_VERSION}`,
    );
  }
  const names = JSON.stringify(feeds);
  // Rows of one feed never overlap in time, so the latest start is the latest run (ids are
  // not in run order: buffered no-op rows are written later). runs_by_feed covers the order.
  const lastRuns = readsRuns
    ? await db.execute({
      sql: `SELECT f.value, r.started_at, r.finished_at, r.outcome, r.error,
              ${runs.has("run_count") ? "r.run_count" : "1"}
            FROM json_each(?) AS f JOIN runs AS r ON r.id = (
              SELECT id FROM runs WHERE feed = f.value ORDER BY started_at DESC, id DESC LIMIT 1)`,
      args: [names],
    })
    : { rows: [] };
  // sent_at is ISO 8601 UTC with milliseconds throughout: text order is time order. One pass
  // over the feeds' rows counts every kind (a database before schema 5 has no 'refused', one
  // before 6 no 'filtered').
  const counts = readsEntries
    ? await db.execute({
      sql: `SELECT feed, count(CASE WHEN status = 'sent' THEN 1 END),
              count(CASE WHEN status = 'sent' AND sent_at >= ?1 THEN 1 END),
              count(CASE WHEN status = 'refused' THEN 1 END),
              count(CASE WHEN status = 'filtered' THEN 1 END)
            FROM entries WHERE feed IN (SELECT value FROM json_each(?2))
              AND status IN ('sent', 'refused', 'filtered')
            GROUP BY feed`,
      args: [since.toISOString(), names],
    })
    : { rows: [] };
  const refusedRows = readsEntries && entries.has("seen_at")
    ? await db.execute({
      sql: `SELECT feed, entry_id, title, link, seen_at FROM (
              SELECT feed, entry_id, title, link, seen_at, row_number() OVER (
                PARTITION BY feed ORDER BY seen_at DESC, entry_id) AS n
              FROM entries WHERE status = 'refused' AND feed IN (SELECT value FROM json_each(?)))
            WHERE n <= ${REFUSED_SHOWN} ORDER BY feed, n`,
      args: [names],
    })
    : { rows: [] };
  const runOf = new Map(lastRuns.rows.map((row) => [String(row[0]), row]));
  const countOf = new Map(counts.rows.map((row) => [String(row[0]), row]));
  const refusedOf = new Map<string, RefusedEntry[]>();
  for (const row of refusedRows.rows) {
    const list = refusedOf.get(String(row[0])) ?? [];
    list.push({
      id: String(row[1]),
      title: String(row[2] ?? ""),
      link: row[3] === null ? null : String(row[3]),
      at: new Date(String(row[4])),
    });
    refusedOf.set(String(row[0]), list);
  }
  const records: StatusRecords = new Map();
  for (const feed of feeds) {
    const run = runOf.get(feed);
    const count = countOf.get(feed);
    records.set(feed, {
      lastRun: run === undefined ? null : {
        startedAt: new Date(String(run[1])),
        finishedAt: new Date(String(run[2])),
        outcome: String(run[3]),
        error: run[4] === null ? null : String(run[4]),
        runCount: Number(run[5]),
      },
      sentTotal: Number(count?.[1] ?? 0),
      sentSince: Number(count?.[2] ?? 0),
      refusedTotal: Number(count?.[3] ?? 0),
      refused: refusedOf.get(feed) ?? [],
      filteredTotal: Number(count?.[4] ?? 0),
    });
  }
  if ((await columnsOf(db, "last_success")).size > 0) {
    const successes = await db.execute("SELECT feed, at FROM last_success");
    records.lastSuccess = new Map(
      successes.rows.map((row) => [String(row[0]), new Date(String(row[1]))]),
    );
  }
  if (remote && (await columnsOf(db, "leases")).size > 0) {
    // The server's clock says when a lease ends, not this machine's (db_time.ts).
    records.leases = await new LeasesTable(db).all();
  }
  return records;
}

/** The column names of `table`; empty when there is no such table. */
async function columnsOf(db: SqlClient, table: string): Promise<Set<string>> {
  const rs = await db.execute({ sql: "SELECT name FROM pragma_table_info(?)", args: [table] });
  return new Set(rs.rows.map((row) => String(row[0])));
}

function need(have: Set<string>, table: string, columns: string[]): string[] {
  return columns.filter((c) => !have.has(c)).map((c) => `${table}.${c}`);
}
