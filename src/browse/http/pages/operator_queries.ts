/**
 * The questions an operator asks of courier's own state (src/store/SCHEMA.md), as ordinary
 * saved queries that open in the editor. Offered when the database has courier's tables.
 */
export interface SavedQuery {
  title: string;
  /** Tables the query reads; it is offered only when all are there. */
  needs: string[];
  sql: string;
}

export const OPERATOR_QUERIES: readonly SavedQuery[] = [
  {
    title: "Feeds failing now, and since when",
    needs: ["runs"],
    sql: `SELECT r.feed, r.finished_at AS last_run, r.error,
  (SELECT min(f.started_at) FROM runs f
    WHERE f.feed = r.feed AND f.outcome = 'failed'
      AND f.started_at > coalesce((SELECT max(o.finished_at) FROM runs o
                                    WHERE o.feed = r.feed AND o.outcome = 'ok'), '')
  ) AS failing_since
FROM runs r
WHERE r.outcome = 'failed'
  AND r.id = (SELECT x.id FROM runs x WHERE x.feed = r.feed
              ORDER BY x.finished_at DESC, x.id DESC LIMIT 1)
ORDER BY failing_since`,
  },
  {
    title: "Latest posts per channel",
    needs: ["entries"],
    sql: `SELECT chat_id, feed, title, link, sent_at, message_id FROM (
  SELECT e.*, row_number() OVER (PARTITION BY chat_id ORDER BY sent_at DESC) AS n
  FROM entries e WHERE status = 'sent')
WHERE n <= 10
ORDER BY chat_id, sent_at DESC`,
  },
  {
    title: "Entries the messenger refused",
    needs: ["entries"],
    sql: `SELECT feed, entry_id, title, link, chat_id, seen_at
FROM entries WHERE status = 'refused'
ORDER BY seen_at DESC`,
  },
  {
    title: "Channel leases and their holders",
    needs: ["leases", "lease_holders"],
    sql: `SELECT l.channel, l.holder,
  strftime('%Y-%m-%dT%H:%M:%fZ', l.taken_at / 1000.0, 'unixepoch') AS taken_at,
  strftime('%Y-%m-%dT%H:%M:%fZ', l.expires_at / 1000.0, 'unixepoch') AS expires_at,
  strftime('%Y-%m-%dT%H:%M:%fZ', h.expires_at / 1000.0, 'unixepoch') AS holder_alive_until
FROM leases l LEFT JOIN lease_holders h ON h.holder = l.holder
ORDER BY l.channel`,
  },
];

/** Whether a database is courier's state: it has courier's core tables. */
export function isCourierState(tables: readonly string[]): boolean {
  return ["feeds", "entries", "runs"].every((t) => tables.includes(t));
}

export function operatorQueries(tables: readonly string[]): SavedQuery[] {
  if (!isCourierState(tables)) return [];
  return OPERATOR_QUERIES.filter((q) => q.needs.every((t) => tables.includes(t)));
}
