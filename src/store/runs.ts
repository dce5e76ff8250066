import type { InStatement, SqlClient } from "./sql.ts";
import type { GroupCommit } from "./commit.ts";

/** What a feed run counted; the forwarder reports these and `runs` records them. */
export interface RunCounts {
  feed: string;
  /** Entries the feed holds now. */
  fetched: number;
  /** Entries this run set out to send (not seen before, after the first-sighting limit). */
  new: number;
  sent: number;
  /** Entries left unsent by a failure; the next run sends them. */
  failed: number;
  /** Entries held back by the first-sighting limit (recorded as seen, never sent). */
  skipped: number;
  /** Why the feed failed; null when it succeeded. */
  error: string | null;
}

/** What one feed run did, as recorded in `runs`. */
export interface RunRecord extends RunCounts {
  startedAt: Date;
  finishedAt: Date;
  outcome: "ok" | "failed";
}

/** A run that succeeded and found, sent, failed and skipped nothing. */
export function isNoOp(run: RunRecord): boolean {
  return run.outcome === "ok" && run.error === null && run.new === 0 && run.sent === 0 &&
    run.failed === 0 && run.skipped === 0;
}

type RunRow = ReturnType<typeof runRow>;

function runRow(run: RunRecord) {
  return [
    run.feed,
    run.startedAt.toISOString(),
    run.finishedAt.toISOString(),
    run.outcome,
    run.fetched,
    run.new,
    run.sent,
    run.failed,
    run.skipped,
    run.error,
  ] as const;
}

/**
 * The `runs` table: one row per run that did something, and for no-op runs (succeeded,
 * nothing new, sent, failed or skipped, validators unchanged) rows buffered in memory and
 * written together. A process killed before they are written loses only these history rows,
 * never delivery state.
 *
 * A no-op run whose feed's latest row is a no-op run with the same count of entries extends
 * that row (its finished_at and run_count) instead of adding one: the steady state of a feed
 * checked every few minutes would otherwise add a row per check for ever, and updating rows in
 * place leaves the runs_by_feed index alone (inserting into it, at a page per feed, was most of
 * a steady-state run's database time).
 */
export class RunsTable {
  #noOps: RunRow[] = [];
  /** Each feed whose latest runs row stands for no-op runs: that row's id and fetched count. */
  #latestNoOps = new Map<string, { id: number; fetched: number }>();
  /** Counts runs that did something as their rows are queued; each feed's latest number. */
  #runsQueued = 0;
  #otherRunQueued = new Map<string, number>();

  constructor(private readonly client: SqlClient, private readonly commits: GroupCommit) {}

  /** No-op rows waiting to be written. */
  get buffered(): number {
    return this.#noOps.length;
  }

  hasBuffered(feed: string): boolean {
    return this.#noOps.some((row) => row[0] === feed);
  }

  buffer(run: RunRecord): void {
    this.#noOps.push(runRow(run));
  }

  /**
   * The statement inserting a run that did something. Call `writeBuffered` first when the
   * feed has buffered rows: this row goes after them, and a later no-op run of the feed starts
   * a row of its own after this one.
   */
  insert(run: RunRecord): InStatement {
    this.#latestNoOps.delete(run.feed);
    this.#otherRunQueued.set(run.feed, ++this.#runsQueued);
    return {
      sql: `INSERT INTO runs (feed, started_at, finished_at, outcome, fetched, new, sent, failed,
              skipped, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args: runRow(run),
    };
  }

  /** Writes the buffered no-op rows in one transaction. */
  async writeBuffered(): Promise<void> {
    if (this.#noOps.length === 0) return;
    const rows = this.#noOps;
    this.#noOps = [];
    const queuedBefore = this.#runsQueued;
    const extend: Record<number, string> = {};
    let extending = 0;
    const insert: RunRow[] = [];
    for (const row of rows) {
      const latest = this.#latestNoOps.get(row[0]);
      if (latest !== undefined && latest.fetched === row[4]) {
        extend[latest.id] = row[2];
        extending++;
      } else insert.push(row);
    }
    const statements: InStatement[] = [];
    if (extending > 0) {
      // {"id": finished_at, ...}: cheaper for SQLite to walk than [[id, finished_at], ...].
      statements.push({
        sql: `UPDATE runs SET finished_at = j.value, run_count = run_count + 1
              FROM json_each(?) AS j WHERE runs.id = j.key`,
        args: [JSON.stringify(extend)],
      });
    }
    if (insert.length > 0) {
      statements.push({
        sql: `INSERT INTO runs (feed, started_at, finished_at, outcome, fetched, new, sent, failed,
                skipped, error)
              SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5,
                value ->> 6, value ->> 7, value ->> 8, value ->> 9
              FROM json_each(?)
              RETURNING id, feed, fetched`,
        args: [JSON.stringify(insert)],
      });
    }
    const results = await this.commits.commit(statements);
    if (insert.length === 0) return;
    for (const row of results[results.length - 1].rows) {
      const feed = String(row[1]);
      // A run that did something, queued meanwhile, comes after this row: it is the latest.
      if ((this.#otherRunQueued.get(feed) ?? 0) > queuedBefore) continue;
      this.#latestNoOps.set(feed, { id: Number(row[0]), fetched: Number(row[2]) });
    }
  }

  /** Forgets feeds whose rows were deleted (retention dropped them). */
  forget(feeds: readonly string[]): void {
    for (const feed of feeds) this.#latestNoOps.delete(feed);
  }

  /**
   * Loads each feed's latest row if it stands for no-op runs: once, at open; this process then
   * keeps it current (it holds the lock). Walks the runs_by_feed index from one feed to the
   * next and takes each feed's latest row by start time (a feed's runs never overlap): a GROUP
   * BY over `runs` read every row at each start-up.
   */
  async loadLatest(): Promise<void> {
    const rs = await this.client.execute(
      `WITH RECURSIVE f(name) AS (
         SELECT min(feed) FROM runs
         UNION ALL
         SELECT (SELECT min(feed) FROM runs WHERE feed > f.name) FROM f WHERE f.name IS NOT NULL)
       SELECT r.feed, r.id, r.fetched, r.outcome = 'ok' AND r.new = 0 AND r.sent = 0
         AND r.failed = 0 AND r.skipped = 0 AND r.error IS NULL
       FROM f JOIN runs AS r ON r.id = (
         SELECT id FROM runs WHERE feed = f.name ORDER BY started_at DESC, id DESC LIMIT 1)
       WHERE f.name IS NOT NULL`,
    );
    for (const row of rs.rows) {
      if (Number(row[3]) !== 1) continue;
      this.#latestNoOps.set(String(row[0]), { id: Number(row[1]), fetched: Number(row[2]) });
    }
  }
}
