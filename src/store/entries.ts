import type { InStatement, SqlClient } from "./sql.ts";
import type { Entry } from "../model/entry.ts";

/**
 * The `feeds` and `entries` tables: which feeds had their first sighting, which entries each
 * has seen (sent or skipped). Every write is its own transaction, committed before the next
 * message goes out.
 */
export class EntriesTable {
  constructor(private readonly client: SqlClient) {}

  /**
   * Whether the feed is known and which of `ids` it has seen, in one query: the ids travel as
   * one JSON parameter and come back as one JSON value, which keeps a steady-state run (every
   * entry seen) to a single round trip into SQLite per feed.
   */
  async lookup(
    feed: string,
    ids: readonly string[],
  ): Promise<{ known: boolean; seen: Set<string> }> {
    // Nothing to look up (the feed is unchanged): whether it is known is in memory.
    if (ids.length === 0) return { known: (await this.#knownFeeds()).has(feed), seen: new Set() };
    const rs = await this.client.execute({
      sql: `SELECT EXISTS (SELECT 1 FROM feeds WHERE name = ?1),
              (SELECT json_group_array(entry_id) FROM entries
                WHERE feed = ?1 AND entry_id IN (SELECT value FROM json_each(?2)))`,
      args: [feed, JSON.stringify(ids)],
    });
    const row = rs.rows[0];
    return {
      known: Number(row[0]) === 1,
      seen: new Set(JSON.parse(String(row[1] ?? "[]")) as string[]),
    };
  }

  /**
   * The feeds that had their first sighting, loaded by the first call and kept current by
   * recordFirstSighting: the lock makes this process the only writer (a dry run writes nothing
   * and reads a snapshot).
   */
  #knownFeeds(): Promise<Set<string>> {
    this.#known ??= this.client.execute("SELECT name FROM feeds").then((rs) =>
      new Set(rs.rows.map((row) => String(row[0])))
    );
    return this.#known;
  }

  #known: Promise<Set<string>> | null = null;

  /** Forgets feeds whose rows were deleted (retention dropped them). */
  async forget(feeds: readonly string[]): Promise<void> {
    if (!this.#known) return;
    const known = await this.#known;
    for (const feed of feeds) known.delete(feed);
  }

  /**
   * The statements recording that a parsed read of the feed held `ids` (every entry of it,
   * already recorded): their last_seen_at becomes `at`; when the run fully succeeded (its
   * validators now describe this body, so later 304s mean "still these entries"), the feed's
   * last_parsed_at becomes `at` too. Committed with the run's row and validators.
   */
  seen(feed: string, ids: readonly string[], at: Date, succeeded: boolean): InStatement[] {
    const statements: InStatement[] = [{
      sql: `UPDATE entries SET last_seen_at = ?1
            WHERE feed = ?2 AND entry_id IN (SELECT value FROM json_each(?3))`,
      args: [at.toISOString(), feed, JSON.stringify(ids)],
    }];
    if (succeeded) {
      statements.push({
        sql: "UPDATE feeds SET last_parsed_at = ? WHERE name = ?",
        args: [at.toISOString(), feed],
      });
    }
    return statements;
  }

  /**
   * Records a feed's first sighting: the feed becomes known and the entries the
   * first-sighting limit held back are recorded as seen, in one transaction.
   */
  async recordFirstSighting(feed: string, skipped: readonly Entry[], at: Date): Promise<void> {
    await this.client.batch([
      {
        // The first sighting counts as the feed's last parsed read until a run succeeds, so
        // the entries it held back are never taken for entries the feed dropped.
        sql: `INSERT OR IGNORE INTO feeds (name, first_seen_at, last_parsed_at)
              VALUES (?1, ?2, ?2)`,
        args: [feed, at.toISOString()],
      },
      seenRows(feed, skipped, "skipped", at),
    ]);
    if (this.#known) (await this.#known).add(feed);
  }

  /**
   * Records entries the feed's filter dropped: seen, never to be posted (a later change of the
   * filter applies to later entries only). One statement however many there are.
   */
  async recordFiltered(feed: string, filtered: readonly Entry[], at: Date): Promise<void> {
    await this.client.execute(seenRows(feed, filtered, "filtered", at));
  }

  /** Marks an entry sent, after the messenger accepted it as `messageId` in `chatId`. */
  async markSent(
    feed: string,
    entry: Entry,
    chatId: string,
    messageId: number,
    at: Date,
    /** Stamp it with the database server's clock instead of `at` (see db_time.ts). */
    serverTime = false,
  ): Promise<void> {
    const sentAt = serverTime ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')" : "?6";
    await this.client.execute({
      sql: `INSERT INTO entries (feed, entry_id, link, title, published_at, status, seen_at,
              last_seen_at, sent_at, chat_id, message_id)
              VALUES (?1, ?2, ?3, ?4, ?5, 'sent', ?6, ?6, ${sentAt}, ?7, ?8)
            ON CONFLICT (feed, entry_id) DO UPDATE SET status = 'sent', sent_at = excluded.sent_at,
              last_seen_at = excluded.last_seen_at, chat_id = excluded.chat_id,
              message_id = excluded.message_id`,
      args: [
        feed,
        entry.id,
        entry.link,
        entry.title,
        dateOf(entry),
        at.toISOString(),
        chatId,
        messageId,
      ],
    });
  }

  /**
   * Records an entry the messenger refused for its content, even in its plainest form, so the
   * feed goes on past it; `chatId` is where it was refused. Never overwrites a sent entry.
   */
  async markRefused(feed: string, entry: Entry, chatId: string, at: Date): Promise<void> {
    await this.client.execute({
      sql: `INSERT INTO entries (feed, entry_id, link, title, published_at, status, seen_at,
              last_seen_at, chat_id)
              VALUES (?1, ?2, ?3, ?4, ?5, 'refused', ?6, ?6, ?7)
            ON CONFLICT (feed, entry_id) DO UPDATE SET status = 'refused',
              last_seen_at = excluded.last_seen_at, chat_id = excluded.chat_id
              WHERE status <> 'sent'`,
      args: [feed, entry.id, entry.link, entry.title, dateOf(entry), at.toISOString(), chatId],
    });
  }
}

/**
 * The statement recording `entries` as seen with `status`, never to be posted: they travel as
 * one JSON parameter, so it is one statement however many there are.
 */
function seenRows(
  feed: string,
  entries: readonly Entry[],
  status: "skipped" | "filtered",
  at: Date,
): InStatement {
  return {
    sql: `INSERT OR IGNORE INTO entries (feed, entry_id, link, title, published_at, status,
            seen_at, last_seen_at)
          SELECT ?1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?4, ?2, ?2
          FROM json_each(?3)`,
    args: [
      feed,
      at.toISOString(),
      JSON.stringify(entries.map((e) => [e.id, e.link, e.title, dateOf(e)])),
      status,
    ],
  };
}

/** An entry's date as stored: published, else updated, else null. */
function dateOf(entry: Entry): string | null {
  const d = entry.published ?? entry.updated;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}
