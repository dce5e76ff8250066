/**
 * Retention: what the forwarder forgets, so its database stays the same size over months.
 * The rule (SCHEMA.md, "Retention") never makes an old entry look new: an entry's row — the
 * only thing that says it was sent — goes only once the entry has been absent from every
 * parsed read of its feed for `keepDays`, and is not among the feed's `keepEntries` most
 * recently seen. A feed that still lists an entry keeps it, however old, even behind months of
 * 304s: `feeds.last_parsed_at` marks the read those 304s vouch for, and its entries carry that
 * same time in `last_seen_at`.
 *
 * Deletes go in batches of `batch` rows, each its own short transaction, with a turn of the
 * event loop between them: a long-running forwarder's own writes (an entry marked sent) never
 * wait behind a whole prune, and readers (`browse`, `status`) are never blocked in WAL mode.
 */
import type { SqlClient } from "./sql.ts";

export interface RetentionRules {
  /** Entries seen, runs finished, and removed feeds active within this many days are kept. */
  keepDays: number;
  /** At least this many entries per feed are kept: the most recently seen. */
  keepEntries: number;
  /** At least this many runs rows per feed are kept: the latest. */
  keepRuns: number;
  /** Rows deleted per statement (one transaction each). */
  batch: number;
  /**
   * The feeds of the config. Any other feed with state (removed from the config) is dropped
   * entirely — entries, runs, validators, its `feeds` row — once its last run, parsed read and
   * first sighting are all older than `keepDays`. Undefined: no feed is dropped.
   */
  configured?: readonly string[];
}

export const DEFAULT_RETENTION: Readonly<RetentionRules> = {
  keepDays: 90,
  keepEntries: 1000,
  keepRuns: 100,
  batch: 500,
};

export interface PruneCounts {
  /** Entry rows deleted (of feeds still configured and of dropped feeds). */
  entries: number;
  /** Runs rows deleted. */
  runs: number;
  /** Feeds whose whole state was dropped (removed from the config long enough ago). */
  droppedFeeds: string[];
  /** Delete statements run (each a transaction of at most `batch` rows). */
  batches: number;
}

const DAY_MS = 86_400_000;

/** Lets other work of the process (a feed run's writes, HTTP) go between two batches. */
const yieldTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Deletes what the rules let go, as of `now`, in bounded batches; returns what it deleted.
 * Safe to run beside feed runs of the same process (each batch is one statement); a failure
 * leaves whatever batches committed deleted, and the next prune goes on from there.
 */
export async function prune(
  client: SqlClient,
  now: Date,
  rules: Partial<RetentionRules> = {},
): Promise<PruneCounts> {
  const r: RetentionRules = { ...DEFAULT_RETENTION, ...rules };
  const cutoff = new Date(now.getTime() - r.keepDays * DAY_MS).toISOString();
  const counts: PruneCounts = { entries: 0, runs: 0, droppedFeeds: [], batches: 0 };

  /** Runs one bounded DELETE until it deletes less than a batch. */
  const drain = async (sql: string, args: (string | number)[]): Promise<number> => {
    let total = 0;
    for (;;) {
      const rs = await client.execute({ sql, args: [...args, r.batch] });
      counts.batches++;
      total += rs.rowsAffected;
      if (rs.rowsAffected < r.batch) return total;
      await yieldTurn();
    }
  };

  const rs = await client.execute(
    `SELECT f.name, f.last_parsed_at, f.first_seen_at FROM feeds AS f
     UNION ALL
     SELECT DISTINCT feed, NULL, NULL FROM runs WHERE feed NOT IN (SELECT name FROM feeds)
     UNION ALL
     SELECT DISTINCT feed, NULL, NULL FROM validators
       WHERE feed NOT IN (SELECT name FROM feeds) AND feed NOT IN (SELECT feed FROM runs)`,
  );
  const configured = r.configured ? new Set(r.configured) : null;

  for (const row of rs.rows) {
    const feed = String(row[0]);
    const lastParsed = row[1] === null ? null : String(row[1]);
    const firstSeen = row[2] === null ? null : String(row[2]);

    if (configured && !configured.has(feed)) {
      if (await lastActivity(client, feed, lastParsed, firstSeen) < cutoff) {
        counts.entries += await drain(
          `DELETE FROM entries WHERE rowid IN (
             SELECT rowid FROM entries WHERE feed = ?1 LIMIT ?2)`,
          [feed],
        );
        counts.runs += await drain(
          `DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE feed = ?1 LIMIT ?2)`,
          [feed],
        );
        await client.batch([
          { sql: "DELETE FROM validators WHERE feed = ?", args: [feed] },
          { sql: "DELETE FROM last_success WHERE feed = ?", args: [feed] },
          { sql: "DELETE FROM feeds WHERE name = ?", args: [feed] },
        ]);
        counts.batches++;
        counts.droppedFeeds.push(feed);
        continue;
      }
    }

    // Entries: older than the cutoff, older than the feed's last successful parsed read (so
    // not in it), and older than the keepEntries-th most recently seen. A feed without a
    // parsed read on record keeps everything: nothing says what it still lists.
    if (lastParsed !== null) {
      const nth = await client.execute({
        sql: `SELECT last_seen_at FROM entries WHERE feed = ?
              ORDER BY last_seen_at DESC LIMIT 1 OFFSET ?`,
        args: [feed, r.keepEntries - 1],
      });
      if (nth.rows.length > 0 && nth.rows[0][0] !== null) {
        const bound = [cutoff, lastParsed, String(nth.rows[0][0])].sort()[0];
        counts.entries += await drain(
          `DELETE FROM entries WHERE rowid IN (
             SELECT rowid FROM entries WHERE feed = ?1 AND last_seen_at < ?2 LIMIT ?3)`,
          [feed, bound],
        );
      }
    }

    // Runs: finished before the cutoff and started before the keepRuns-th latest. By finish:
    // a row standing for months of no-op runs started long ago but is the feed's current one.
    const nthRun = await client.execute({
      sql: `SELECT started_at FROM runs WHERE feed = ?
            ORDER BY started_at DESC LIMIT 1 OFFSET ?`,
      args: [feed, r.keepRuns - 1],
    });
    if (nthRun.rows.length > 0) {
      counts.runs += await drain(
        `DELETE FROM runs WHERE id IN (
           SELECT id FROM runs WHERE feed = ?1 AND started_at < ?2 AND finished_at < ?3
           LIMIT ?4)`,
        [feed, String(nthRun.rows[0][0]), cutoff],
      );
    }
  }
  return counts;
}

/** The latest sign of life of a feed's state: its last run, parsed read or first sighting. */
async function lastActivity(
  client: SqlClient,
  feed: string,
  lastParsed: string | null,
  firstSeen: string | null,
): Promise<string> {
  const rs = await client.execute({
    sql: `SELECT max(finished_at) FROM runs WHERE feed = ?1
          UNION ALL SELECT max(updated_at) FROM validators WHERE feed = ?1`,
    args: [feed],
  });
  const times = [lastParsed, firstSeen, ...rs.rows.map((row) => row[0])]
    .filter((t): t is string => typeof t === "string");
  return times.sort().at(-1) ?? "";
}
