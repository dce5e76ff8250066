/**
 * The database schema as an ordered list of migrations. Migration i brings the schema from
 * version i to i + 1; the version lives in SQLite's `PRAGMA user_version`, so a database knows
 * which migrations it has had. Never edit a released migration: append a new one.
 * The schema is documented in ./SCHEMA.md.
 */
/**
 * A migration that lets `entries.status` take `statuses`: SQLite cannot change a CHECK in
 * place, so the table is rebuilt with the same columns, rows and index. Its SQL is that of the
 * released migrations 5 and 6, which must not change.
 */
function rebuildEntries(version: number, statuses: string[]): string[] {
  const table = `entries_v${version}`;
  const allowed = statuses.map((s) => `'${s}'`).join(", ");
  return [
    `CREATE TABLE ${table} (
      feed TEXT NOT NULL,
      entry_id TEXT NOT NULL,
      link TEXT,
      title TEXT NOT NULL,
      published_at TEXT,
      status TEXT NOT NULL CHECK (status IN (${allowed})),
      seen_at TEXT NOT NULL,
      sent_at TEXT,
      chat_id TEXT,
      message_id INTEGER,
      last_seen_at TEXT,
      PRIMARY KEY (feed, entry_id)
    ) STRICT`,
    `INSERT INTO ${table} (feed, entry_id, link, title, published_at, status, seen_at, sent_at,
       chat_id, message_id, last_seen_at)
     SELECT feed, entry_id, link, title, published_at, status, seen_at, sent_at, chat_id,
       message_id, last_seen_at FROM entries`,
    `DROP TABLE entries`,
    `ALTER TABLE ${table} RENAME TO entries`,
    `CREATE INDEX entries_by_last_seen ON entries (feed, last_seen_at)`,
  ];
}

export const MIGRATIONS: readonly (readonly string[])[] = [
  // 1: feeds, entries, runs, validators, chat migrations.
  [
    `CREATE TABLE feeds (
      name TEXT PRIMARY KEY,
      first_seen_at TEXT NOT NULL
    ) STRICT`,
    `CREATE TABLE entries (
      feed TEXT NOT NULL,
      entry_id TEXT NOT NULL,
      link TEXT,
      title TEXT NOT NULL,
      published_at TEXT,
      status TEXT NOT NULL CHECK (status IN ('sent', 'skipped')),
      seen_at TEXT NOT NULL,
      sent_at TEXT,
      chat_id TEXT,
      message_id INTEGER,
      PRIMARY KEY (feed, entry_id)
    ) STRICT`,
    `CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
      feed TEXT NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT NOT NULL,
      outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'failed')),
      fetched INTEGER NOT NULL,
      new INTEGER NOT NULL,
      sent INTEGER NOT NULL,
      failed INTEGER NOT NULL,
      skipped INTEGER NOT NULL,
      error TEXT
    ) STRICT`,
    `CREATE INDEX runs_by_feed ON runs (feed, started_at)`,
    `CREATE TABLE validators (
      feed TEXT NOT NULL,
      url TEXT NOT NULL,
      etag TEXT,
      last_modified TEXT,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (feed, url)
    ) STRICT`,
    `CREATE TABLE chat_migrations (
      from_chat TEXT PRIMARY KEY,
      to_chat TEXT NOT NULL,
      migrated_at TEXT NOT NULL
    ) STRICT`,
  ],
  // 2: the hash of the body each URL's validators were taken with (an identical 200 is a 304).
  [`ALTER TABLE validators ADD COLUMN body_hash TEXT`],
  // 3: a runs row may stand for several consecutive no-op runs of its feed (steady state
  // would otherwise add a row per feed per run, for ever).
  [`ALTER TABLE runs ADD COLUMN run_count INTEGER NOT NULL DEFAULT 1`],
  // 4: retention (src/store/retention.ts). When each entry was last in a parsed read of its
  // feed, and when the feed's last fully successful parsed read was, so pruning can tell an
  // entry the feed still holds (behind 304s) from one it dropped. Rows already stored count as
  // seen now and every feed as parsed now: nothing is known to have left a feed yet, so nothing
  // becomes prunable before it has been absent from a parsed read for the whole keep period.
  [
    `ALTER TABLE feeds ADD COLUMN last_parsed_at TEXT`,
    `UPDATE feeds SET last_parsed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
    `ALTER TABLE entries ADD COLUMN last_seen_at TEXT`,
    // The feed's own time, not 'now' again: 'now' may move between two statements, and an
    // entry seen before its feed's last parsed read would count as gone from it.
    `UPDATE entries SET last_seen_at = coalesce(
       (SELECT last_parsed_at FROM feeds WHERE name = entries.feed),
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
    `CREATE INDEX entries_by_last_seen ON entries (feed, last_seen_at)`,
    `CREATE TABLE meta (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT`,
  ],
  // 5: an entry the messenger refused for its content, in HTML and again as plain text, is
  // recorded as 'refused' so it no longer blocks its feed.
  rebuildEntries(5, ["sent", "skipped", "refused"]),
  // 6: an entry a feed's filter dropped is recorded as 'filtered': seen, never posted, and
  // counted by `status`.
  rebuildEntries(6, ["sent", "skipped", "refused", "filtered"]),
  // 7: several processes on one database (a libSQL server): who holds each channel's lease
  // and until when (ms since the epoch), which processes are alive, each feed's last success
  // (authoritative with remote state); and the sends of the last minute found by time, which
  // seeds Telegram's limits at a start or a takeover (src/forward/leases.ts, pacer seeding).
  [
    `CREATE TABLE leases (
      channel TEXT PRIMARY KEY,
      holder TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      taken_at INTEGER NOT NULL
    ) STRICT`,
    `CREATE TABLE lease_holders (
      holder TEXT PRIMARY KEY,
      expires_at INTEGER NOT NULL
    ) STRICT`,
    `CREATE TABLE last_success (
      feed TEXT PRIMARY KEY,
      at TEXT NOT NULL
    ) STRICT`,
    `CREATE INDEX entries_by_sent ON entries (sent_at) WHERE status = 'sent'`,
  ],
];

/** The schema version this build writes and understands. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Why a database this courier must not touch is refused: its schema is newer; else null. */
export function newerSchema(path: string, version: number): string | null {
  return version > SCHEMA_VERSION
    ? `database ${path} has schema version ${version}, newer than this courier ` +
      `understands (${SCHEMA_VERSION}); upgrade courier`
    : null;
}
