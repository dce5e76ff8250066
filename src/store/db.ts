import { type Client, createClient, type InStatement, type ResultSet } from "@libsql/client";
import type { Entry } from "../feeds/entry.ts";
import { type Clock, realClock, type TimerId } from "../log/clock.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";

/** The database could not be opened, migrated or written. The message names the file. */
export class StoreError extends Error {
  override name = "StoreError";
  readonly exitCode = 1;
}

/** HTTP validators of one feed URL, kept for conditional GET. */
export interface StoredValidators {
  etag: string | null;
  lastModified: string | null;
  /** Hash of the body (with final URL and content type) the last successful run read. */
  bodyHash: string | null;
}

/** Whether there is anything to keep for a URL. */
const meaningful = (v: StoredValidators) =>
  v.etag !== null || v.lastModified !== null || v.bodyHash !== null;

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

export const DB_FILE = "courier.db";

/** The path of the forwarder's database inside `dbDir`. */
export function dbPath(dbDir: string): string {
  return `${dbDir.replace(/\/+$/, "")}/${DB_FILE}`;
}

/**
 * ISO 8601 of a time, remembering the last one converted: a steady-state run records two
 * times for each of hundreds of feeds, and most share their millisecond with the same time of
 * the feed before (toISOString was a visible share of such a run's CPU). One converter per
 * kind of time, so start and finish times do not evict each other.
 */
function isoConverter(): (d: Date) => string {
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

const iso = isoConverter();
const isoStarted = isoConverter();
const isoFinished = isoConverter();

/**
 * The forwarder's state: which entries each feed has seen and sent, its runs, its fetch
 * validators and chat migrations. One libSQL file; every write that matters for delivery
 * (an entry marked sent) is its own committed transaction before the next message goes out.
 */
export interface StoreOptions {
  /** Open an existing database for reading only; a missing one yields null. */
  readOnly?: boolean;
  /** Runs the timer that writes buffered run rows; default the process's clock. */
  clock?: Clock;
  /**
   * Buffered run rows are written at most this long after the first of them (default 30 s),
   * so a long-lived process keeps its history current without a write per run.
   */
  flushAfterMs?: number;
}

export class Store {
  readonly #clock: Clock;
  readonly #flushAfterMs: number;

  private constructor(
    private readonly client: Client,
    readonly path: string,
    options: StoreOptions,
  ) {
    this.#clock = options.clock ?? realClock;
    this.#flushAfterMs = options.flushAfterMs ?? DEFAULT_FLUSH_AFTER_MS;
  }

  /**
   * Opens (creating the directory and file if needed) and migrates the database in `dbDir`.
   * With `readOnly`, nothing is created or migrated: a missing database yields null.
   */
  static async open(dbDir: string, options: StoreOptions = {}): Promise<Store | null> {
    const path = dbPath(dbDir);
    if (options.readOnly) {
      try {
        await Deno.stat(path);
      } catch {
        return null;
      }
    } else {
      await Deno.mkdir(dbDir, { recursive: true }).catch((error) => {
        throw new StoreError(`cannot create database directory ${dbDir}: ${error.message}`);
      });
    }
    let client: Client;
    try {
      // One connection: the per-connection PRAGMAs below (synchronous, query_only, busy_timeout)
      // must hold for every statement, and SQLite calls here are synchronous anyway.
      client = createClient({ url: `file:${path}`, concurrency: 1 });
      if (options.readOnly) {
        await client.execute("PRAGMA query_only = 1");
      } else {
        await client.execute("PRAGMA journal_mode = WAL");
        // WAL + NORMAL: a committed transaction survives the process being killed; only a
        // power loss may take back the last ones, which costs a re-send, never a loss.
        await client.execute("PRAGMA synchronous = NORMAL");
      }
      await client.execute("PRAGMA busy_timeout = 5000");
    } catch (error) {
      throw new StoreError(`cannot open database ${path}: ${(error as Error).message}`);
    }
    const store = new Store(client, path, options);
    try {
      const version = await store.version();
      if (version > SCHEMA_VERSION) {
        throw new StoreError(
          `database ${path} has schema version ${version}, newer than this courier ` +
            `understands (${SCHEMA_VERSION}); upgrade courier`,
        );
      }
      if (options.readOnly) {
        if (version < SCHEMA_VERSION) {
          throw new StoreError(
            `database ${path} has schema version ${version}; run courier once without ` +
              `--dry-run to migrate it to ${SCHEMA_VERSION}`,
          );
        }
      } else {
        await store.migrate(version);
        await store.#loadLatestNoOps();
      }
    } catch (error) {
      client.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError(`cannot migrate database ${path}: ${(error as Error).message}`);
    }
    return store;
  }

  close(): void {
    this.#disarm();
    this.client.close();
  }

  async version(): Promise<number> {
    const rs = await this.client.execute("PRAGMA user_version");
    return Number(rs.rows[0]?.[0] ?? 0);
  }

  private async migrate(from: number): Promise<void> {
    for (let v = from; v < MIGRATIONS.length; v++) {
      // Each migration and its version bump commit together or not at all.
      await this.client.batch([...MIGRATIONS[v], `PRAGMA user_version = ${v + 1}`], "write");
    }
  }

  /** Whether the feed has had its first sighting (its first successful read). */
  async isKnownFeed(feed: string): Promise<boolean> {
    const rs = await this.client.execute({
      sql: "SELECT 1 FROM feeds WHERE name = ?",
      args: [feed],
    });
    return rs.rows.length > 0;
  }

  /** The ids among `ids` that the feed has already seen (sent or skipped). */
  async seenIds(feed: string, ids: readonly string[]): Promise<Set<string>> {
    const seen = new Set<string>();
    // SQLite binds at most 32766 parameters; stay well below.
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rs = await this.client.execute({
        sql: `SELECT entry_id FROM entries WHERE feed = ? AND entry_id IN (${
          chunk.map(() => "?").join(",")
        })`,
        args: [feed, ...chunk],
      });
      for (const row of rs.rows) seen.add(String(row[0]));
    }
    return seen;
  }

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

  /**
   * Records a feed's first sighting: the feed becomes known and the entries the
   * first-sighting limit held back are recorded as seen, in one transaction.
   */
  async recordFirstSighting(feed: string, skipped: readonly Entry[], at: Date): Promise<void> {
    // The entries travel as one JSON parameter: one statement however many there are.
    const rows = JSON.stringify(skipped.map((e) => [e.id, e.link, e.title, dateOf(e)]));
    await this.client.batch([
      {
        sql: "INSERT OR IGNORE INTO feeds (name, first_seen_at) VALUES (?, ?)",
        args: [feed, iso(at)],
      },
      {
        sql: `INSERT OR IGNORE INTO entries (feed, entry_id, link, title, published_at, status,
                seen_at)
              SELECT ?1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, 'skipped', ?2
              FROM json_each(?3)`,
        args: [feed, iso(at), rows],
      },
    ], "write");
    if (this.#known) (await this.#known).add(feed);
  }

  /** Marks an entry sent, after the messenger accepted it as `messageId` in `chatId`. */
  async markSent(
    feed: string,
    entry: Entry,
    chatId: string,
    messageId: number,
    at: Date,
  ): Promise<void> {
    await this.client.execute({
      sql: `INSERT INTO entries (feed, entry_id, link, title, published_at, status, seen_at,
              sent_at, chat_id, message_id) VALUES (?, ?, ?, ?, ?, 'sent', ?, ?, ?, ?)
            ON CONFLICT (feed, entry_id) DO UPDATE SET status = 'sent', sent_at = excluded.sent_at,
              chat_id = excluded.chat_id, message_id = excluded.message_id`,
      args: [
        feed,
        entry.id,
        entry.link,
        entry.title,
        dateOf(entry),
        iso(at),
        iso(at),
        chatId,
        messageId,
      ],
    });
  }

  /**
   * The stored validators of the feed's URLs (URLs without any are absent). All feeds' are
   * loaded by the first call, in one query, and kept current by finishRun: the lock makes this
   * process the only writer. The map is shared, not copied (a copy per feed per run showed in
   * profiles): finishRun replaces a feed's map, never changes one handed out.
   */
  async validators(feed: string): Promise<ReadonlyMap<string, StoredValidators>> {
    this.#validators ??= this.#loadValidators();
    return (await this.#validators).get(feed) ?? NO_VALIDATORS;
  }

  #validators: Promise<Map<string, Map<string, StoredValidators>>> | null = null;

  async #loadValidators(): Promise<Map<string, Map<string, StoredValidators>>> {
    const rs = await this.client.execute(
      "SELECT feed, url, etag, last_modified, body_hash FROM validators",
    );
    const all = new Map<string, Map<string, StoredValidators>>();
    for (const row of rs.rows) {
      const feed = String(row[0]);
      if (!all.has(feed)) all.set(feed, new Map());
      all.get(feed)!.set(String(row[1]), {
        etag: row[2] === null ? null : String(row[2]),
        lastModified: row[3] === null ? null : String(row[3]),
        bodyHash: row[4] === null ? null : String(row[4]),
      });
    }
    return all;
  }

  /**
   * Records a finished run; when given (a fully successful run), the feed's validators are
   * replaced in the same transaction, so they never get ahead of the entries they cover.
   */
  async finishRun(run: RunRecord, validators?: Map<string, StoredValidators>): Promise<void> {
    if (!validators && isNoOp(run)) {
      // History only: buffered and written in one statement (see flush).
      this.#noOps.push(runRow(run));
      if (this.#noOps.length >= NO_OP_BUFFER) await this.flush();
      else this.#arm();
      return;
    }
    // This run's row goes after any no-op run of the same feed still buffered, and a later
    // no-op run of the feed must start a row of its own after this one.
    if (this.#noOps.some((row) => row[0] === run.feed)) await this.flush();
    this.#latestNoOps.delete(run.feed);
    this.#otherRunQueued.set(run.feed, ++this.#runsQueued);
    const insert: InStatement = {
      sql: `INSERT INTO runs (feed, started_at, finished_at, outcome, fetched, new, sent, failed,
              skipped, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args: runRow(run),
    };
    if (!validators) {
      await this.#commit([insert]);
      return;
    }
    const statements: InStatement[] = [insert];
    statements.push({ sql: "DELETE FROM validators WHERE feed = ?", args: [run.feed] });
    for (const [url, v] of validators) {
      if (!meaningful(v)) continue;
      statements.push({
        sql: `INSERT INTO validators (feed, url, etag, last_modified, body_hash, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)`,
        args: [run.feed, url, v.etag, v.lastModified, v.bodyHash, iso(run.finishedAt)],
      });
    }
    await this.#commit(statements);
    if (this.#validators) {
      const kept = new Map([...validators].filter(([, v]) => meaningful(v)));
      (await this.#validators).set(run.feed, kept);
    }
  }

  /**
   * Writes the buffered rows of no-op runs (succeeded, nothing new, sent, failed or skipped,
   * validators unchanged), in one transaction. Called by the run's end (and by finishRun when
   * the buffer is full): a process killed before then loses only these history rows, never
   * delivery state: entries, validators and every run that did something are written when
   * they happen.
   *
   * A no-op run whose feed's latest row is a no-op run with the same count of entries extends
   * that row (its finished_at and run_count) instead of adding one: the steady state of a
   * feed checked every few minutes would otherwise add a row per check for ever, and updating
   * rows in place leaves the runs_by_feed index alone (inserting into it, at a page per feed,
   * was most of a steady-state run's database time).
   */
  async flush(): Promise<void> {
    this.#disarm();
    const failed = this.#timedFlushError;
    this.#timedFlushError = null;
    await this.#writeNoOps();
    if (failed !== null) throw failed;
  }

  async #writeNoOps(): Promise<void> {
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
    const results = await this.#commit(statements);
    if (insert.length === 0) return;
    for (const row of results[results.length - 1].rows) {
      const feed = String(row[1]);
      // A run that did something, queued meanwhile, comes after this row: it is the latest.
      if ((this.#otherRunQueued.get(feed) ?? 0) > queuedBefore) continue;
      this.#latestNoOps.set(feed, { id: Number(row[0]), fetched: Number(row[2]) });
    }
  }

  #noOps: RunRow[] = [];
  #flushTimer: TimerId | undefined;
  /** Why the last timed flush failed; thrown by the next flush, whose caller can tell. */
  #timedFlushError: unknown = null;

  /** Makes sure buffered rows are written within flushAfterMs even if no run's end comes. */
  #arm(): void {
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = this.#clock.setTimeout(() => {
      this.#flushTimer = undefined;
      const writing: Promise<void> = this.#writeNoOps()
        .catch((error) => void (this.#timedFlushError = error))
        .finally(() => {
          if (this.#timedWrite === writing) this.#timedWrite = null;
        });
      this.#timedWrite = writing;
    }, this.#flushAfterMs);
  }

  #timedWrite: Promise<unknown> | null = null;

  /** Resolves once a write the timer started is done (before closing, say); starts none. */
  async whenWritten(): Promise<void> {
    while (this.#timedWrite) await this.#timedWrite;
  }

  #disarm(): void {
    if (this.#flushTimer === undefined) return;
    this.#clock.clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  /** Each feed whose latest runs row stands for no-op runs: that row's id and fetched count. */
  #latestNoOps = new Map<string, { id: number; fetched: number }>();
  /** Counts runs that did something as their rows are queued; each feed's latest number. */
  #runsQueued = 0;
  #otherRunQueued = new Map<string, number>();

  /**
   * Loads #latestNoOps: once, at open; this process then keeps it current (it holds the lock).
   * Walks the runs_by_feed index from one feed to the next and takes each feed's latest row by
   * start time (a feed's runs never overlap): a GROUP BY over `runs` read every row at each
   * start-up, 93-162 ms for 200,000 rows against 3 ms.
   */
  async #loadLatestNoOps(): Promise<void> {
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

  /**
   * Commits `statements` as one transaction, or together with those of other callers waiting
   * at the same time (group commit): while one transaction is being written the next callers
   * queue up, and all of them share the next one. Each caller resolves only once its
   * statements are committed, so nothing is acknowledged before it is stored.
   */
  #commit(statements: InStatement[]): Promise<ResultSet[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ statements, resolve, reject });
      this.#committing ??= this.#drain();
    });
  }

  #queue: {
    statements: InStatement[];
    resolve: (results: ResultSet[]) => void;
    reject: (e: unknown) => void;
  }[] = [];
  #committing: Promise<void> | null = null;

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const group = this.#queue;
        this.#queue = [];
        try {
          const results = await this.client.batch(group.flatMap((g) => g.statements), "write");
          let at = 0;
          for (const g of group) {
            g.resolve(results.slice(at, at + g.statements.length));
            at += g.statements.length;
          }
        } catch (error) {
          if (group.length === 1) {
            group[0].reject(error);
            continue;
          }
          // Each caller on its own, so a failure is charged to the statements that caused it.
          for (const g of group) {
            await this.client.batch(g.statements, "write").then(g.resolve, g.reject);
          }
        }
      }
    } finally {
      this.#committing = null;
    }
  }

  /** Chat ids the messenger moved (group → supergroup): old id → new id. */
  async chatMigrations(): Promise<Map<string, string>> {
    const rs = await this.client.execute("SELECT from_chat, to_chat FROM chat_migrations");
    return new Map(rs.rows.map((row) => [String(row[0]), String(row[1])]));
  }

  async recordChatMigration(from: string, to: string, at: Date): Promise<void> {
    await this.client.execute({
      sql: `INSERT INTO chat_migrations (from_chat, to_chat, migrated_at) VALUES (?, ?, ?)
            ON CONFLICT (from_chat) DO UPDATE SET to_chat = excluded.to_chat,
              migrated_at = excluded.migrated_at`,
      args: [from, to, iso(at)],
    });
  }

  /** Runs a read-only query; for tests and tools that inspect the state. */
  async query(sql: string, args: (string | number | null)[] = []): Promise<unknown[][]> {
    const rs = await this.client.execute({ sql, args });
    return rs.rows.map((row) => Array.from({ length: row.length }, (_, i) => row[i]));
  }
}

const NO_VALIDATORS: ReadonlyMap<string, StoredValidators> = new Map();

const DEFAULT_FLUSH_AFTER_MS = 30_000;

/** How many no-op run rows are buffered at most before they are written. */
const NO_OP_BUFFER = 256;

type RunRow = [
  string,
  string,
  string,
  string,
  number,
  number,
  number,
  number,
  number,
  string | null,
];

function runRow(run: RunRecord): RunRow {
  return [
    run.feed,
    isoStarted(run.startedAt),
    isoFinished(run.finishedAt),
    run.outcome,
    run.fetched,
    run.new,
    run.sent,
    run.failed,
    run.skipped,
    run.error,
  ];
}

/** A run that succeeded and found, sent, failed and skipped nothing. */
function isNoOp(run: RunRecord): boolean {
  return run.outcome === "ok" && run.error === null && run.new === 0 && run.sent === 0 &&
    run.failed === 0 && run.skipped === 0;
}

function dateOf(entry: Entry): string | null {
  const d = entry.published ?? entry.updated;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}
