import { Database } from "./sqlite.ts";
import type { SqlClient } from "./sql.ts";
import { openRemote } from "./remote.ts";
import { dbPath, describeLocation, type StateLocation } from "./location.ts";
import { type LeaseClaim, type LeaseHolding, LeasesTable, type LeaseView } from "./leases.ts";
import { type DbClock, timed } from "./db_time.ts";
import type { Entry } from "../model/entry.ts";
import { type Clock, realClock, type TimerId } from "../time/clock.ts";
import { GroupCommit } from "./commit.ts";
import { EntriesTable } from "./entries.ts";
import {
  describeFailure,
  sqliteCode,
  StoreError,
  storeFailure,
  unreachableServer,
} from "./failure.ts";
import { MIGRATIONS, newerSchema, SCHEMA_VERSION } from "./migrations.ts";
import { isNoOp, type RunRecord, RunsTable } from "./runs.ts";
import { prune, type PruneCounts, type RetentionRules } from "./retention.ts";
import { type StoredValidators, ValidatorsTable } from "./validators.ts";

export type { RunCounts, RunRecord } from "./runs.ts";

/**
 * `passive` copies to courier.db what no reader still needs and never waits: for a process
 * that goes on writing. `truncate` also waits (up to the busy timeout) for readers to finish
 * and empties the -wal file: for when nothing else is running, like the end of `once`.
 */
export type CheckpointMode = "passive" | "truncate";

export interface StoreOptions {
  /** Open an existing database for reading only; a missing one yields null. */
  readOnly?: boolean;
  /** Runs the timer that writes buffered run rows; default the process's clock. */
  clock?: Clock;
  /**
   * How a remote location is reached; default `@libsql/client/web` (remote.ts). Tests put a
   * local SQLite file behind it to stand in for the server (the store then behaves as remote:
   * leases, last successes in the database) at the speed a simulated year needs.
   */
  connect?: (url: string, authToken?: string) => Promise<SqlClient>;
  /**
   * The database's clock (db_time.ts), for the times processes compare: leases, send times.
   * Default: a server's own clock for a remote location, the `clock`'s wall time for a file.
   * Tests that put a file behind `connect` pass their simulated clock here.
   */
  databaseNow?: () => number;
}

/**
 * The -wal file is cut back to this size whenever a checkpoint has copied all of it and the
 * next write starts it over, so one large transaction (a first prune) does not leave a large
 * file behind for good. 4 MiB: well above what a day of runs writes between checkpoints.
 */
const WAL_SIZE_LIMIT = 4 * 1024 * 1024;

/** A prune is due when the last one (`meta.pruned_at`) is at least this old. */
const PRUNE_EVERY_MS = 86_400_000;

/** How many no-op run rows are buffered at most before they are written. */
const NO_OP_BUFFER = 256;
/**
 * Buffered run rows are written at most this long after the first of them, so a long-lived
 * process keeps its history current without a write per run.
 */
const FLUSH_AFTER_MS = 30_000;

/**
 * The forwarder's state: which entries each feed has seen and sent (entries.ts), its runs
 * (runs.ts), its fetch validators (validators.ts) and chat migrations. One SQLite file
 * (sqlite.ts); every write that matters for delivery (an entry marked sent) is its own
 * committed transaction before the next message goes out.
 */
export class Store {
  readonly #clock: Clock;
  readonly #commits: GroupCommit;
  readonly #entries: EntriesTable;
  readonly #runs: RunsTable;
  readonly #validators: ValidatorsTable;
  readonly #readOnly: boolean;
  readonly #leases: LeasesTable;
  readonly #dbClock: DbClock;
  /** Last successes not yet written to the database. */
  #successes = new Map<string, string>();

  private constructor(
    private readonly client: SqlClient,
    /** The file, or the server's URL with its credentials hidden: for messages. */
    readonly path: string,
    options: StoreOptions,
    /** Whether the database is a libSQL server (no WAL to checkpoint, other processes). */
    readonly remote = false,
  ) {
    this.#readOnly = options.readOnly === true;
    this.#clock = options.clock ?? realClock;
    this.#commits = new GroupCommit(client);
    this.#entries = new EntriesTable(client);
    this.#runs = new RunsTable(client, this.#commits);
    this.#validators = new ValidatorsTable(client);
    const clock = this.#clock;
    this.#dbClock = options.databaseNow ?? (remote ? null : () => clock.now());
    this.#leases = new LeasesTable(client, this.#dbClock);
  }

  /** Opens the state where `location` says: a local file (as open) or a libSQL server. */
  static async openAt(location: StateLocation, options: StoreOptions = {}): Promise<Store | null> {
    if (location.kind === "file") return await Store.open(location.dbDir, options);
    const shown = describeLocation(location);
    const connect = options.connect ?? openRemote;
    const client = await connect(location.url, location.authToken?.reveal()).catch(
      (error) => {
        throw storeFailure("open the database", shown, error);
      },
    );
    return await Store.#ready(new Store(client, shown, options, true), options);
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
        throw new StoreError(
          `cannot create database directory ${dbDir}: ${error.message}`,
          null,
          2,
        );
      });
    }
    let client: Database;
    try {
      // One connection: the per-connection PRAGMAs below (synchronous, query_only, busy_timeout)
      // must hold for every statement, and SQLite calls here are synchronous anyway.
      client = Database.open(path);
      if (options.readOnly) {
        await client.execute("PRAGMA query_only = 1");
      } else {
        await client.execute("PRAGMA journal_mode = WAL");
        // WAL + NORMAL: a committed transaction survives the process being killed; only a
        // power loss may take back the last ones, which costs a re-send, never a loss.
        await client.execute("PRAGMA synchronous = NORMAL");
        await client.execute(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
      }
      await client.execute("PRAGMA busy_timeout = 5000");
    } catch (error) {
      throw new StoreError(`cannot open ${path}: ${describeFailure(error)}`, sqliteCode(error));
    }
    return await Store.#ready(new Store(client, path, options), options);
  }

  /** Checks the schema version and migrates (or, read-only, refuses an old schema). */
  static async #ready(store: Store, options: StoreOptions): Promise<Store | null> {
    const { client, path } = store;
    // What the open was doing when it failed, for the message.
    let step = options.readOnly ? "read the state" : "migrate the schema";
    try {
      const version = await store.version();
      const newer = newerSchema(path, version);
      if (newer !== null) throw new StoreError(newer);
      if (options.readOnly && store.remote && version === 0) {
        // A server's database nothing has written to yet: as a missing local file.
        client.close();
        return null;
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
        step = "read the state";
        await store.#runs.loadLatest();
      }
    } catch (error) {
      client.close();
      // Nothing was done yet: the server is what to look at, not the step.
      const unreachable = unreachableServer(path, error);
      if (unreachable !== null) throw new StoreError(unreachable);
      throw storeFailure(step, path, error);
    }
    return store;
  }

  close(): void {
    this.#disarm();
    this.#successes.clear();
    this.client.close();
  }

  /**
   * Closes after a `truncate` checkpoint, so the whole state is in courier.db and the -wal
   * file is empty (the end of `once`, a clean stop of `forward`). A checkpoint that fails or
   * finds a reader loses nothing (the WAL is replayed by the next open), but until one succeeds
   * courier.db alone is not the state (a copy of it misses what is in the WAL): the failure is
   * returned for the caller to report, not thrown, since the database closes either way.
   */
  async shutdown(): Promise<StoreError | null> {
    let failure: StoreError | null = null;
    if (!this.#readOnly && !this.remote) {
      await this.checkpoint("truncate").catch((error) => {
        failure = storeFailure("checkpoint the WAL", this.path, error);
      });
    }
    this.close();
    return failure;
  }

  /**
   * Copies the WAL into courier.db (see CheckpointMode). A long-lived process calls
   * `checkpoint()` (passive) after each tick that wrote and `checkpoint("truncate")` when it
   * is idle; SQLite's own automatic checkpoint (every 1000 pages) only runs inside a commit,
   * and is passive too, so without them a reader could pin an ever-growing WAL.
   */
  async checkpoint(mode: CheckpointMode = "passive"): Promise<void> {
    // A server keeps its own log; there is no local WAL to copy.
    if (this.remote) return;
    const pragma = `PRAGMA wal_checkpoint(${mode.toUpperCase()})`;
    await this.#step("checkpoint the WAL", () => this.client.execute(pragma));
  }

  /**
   * Deletes what the retention rules let go as of `now` (src/store/retention.ts; SCHEMA.md,
   * "Retention"), in bounded batches, and records the time in `meta.pruned_at`. Pass the
   * config's feed names as `configured` so feeds removed from it are dropped in time.
   */
  prune(now: Date, rules: Partial<RetentionRules> = {}): Promise<PruneCounts> {
    return this.#step("prune old state", async () => {
      const counts = await prune(this.client, now, rules);
      await this.adopt(counts.droppedFeeds);
      await this.client.execute({
        sql: `INSERT INTO meta (key, value) VALUES ('pruned_at', ?)
              ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        args: [now.toISOString()],
      });
      return counts;
    });
  }

  /**
   * Prunes if the last prune is a day old or more (or never happened, or is in the future: the
   * clock was stepped back); else does nothing but one read. Null when it did not prune.
   */
  async pruneIfDue(now: Date, rules: Partial<RetentionRules> = {}): Promise<PruneCounts | null> {
    const rs = await this.#step(
      "prune old state",
      () => this.client.execute("SELECT value FROM meta WHERE key = 'pruned_at'"),
    );
    const last = rs.rows.length > 0 ? Date.parse(String(rs.rows[0][0])) : NaN;
    const age = now.getTime() - last;
    if (!Number.isNaN(last) && age >= 0 && age < PRUNE_EVERY_MS) return null;
    return await this.prune(now, rules);
  }

  async version(): Promise<number> {
    const rs = await this.client.execute("PRAGMA user_version");
    return Number(rs.rows[0]?.[0] ?? 0);
  }

  private async migrate(from: number): Promise<void> {
    for (let v = from; v < MIGRATIONS.length; v++) {
      try {
        // Each migration and its version bump commit together or not at all.
        await this.client.batch([...MIGRATIONS[v], `PRAGMA user_version = ${v + 1}`]);
      } catch (error) {
        // Another process sharing the database (db_url) may have run it first.
        if (await this.version() > v) continue;
        throw error;
      }
    }
  }

  /**
   * Whether no feed has had its first sighting and no entry is recorded: a new database, or one
   * that lost its state (a WAL left behind, an old copy, a db_dir that moved).
   */
  async isEmpty(): Promise<boolean> {
    const rs = await this.#step(
      "read the state",
      () =>
        this.client.execute(
          "SELECT EXISTS (SELECT 1 FROM feeds) OR EXISTS (SELECT 1 FROM entries)",
        ),
    );
    return Number(rs.rows[0]?.[0] ?? 0) === 0;
  }

  /**
   * Whether the feed has had its first sighting (its first successful read) and which of `ids`
   * it has seen (sent or skipped), in one query.
   */
  lookup(feed: string, ids: readonly string[]): Promise<{ known: boolean; seen: Set<string> }> {
    return this.#step("read the state", () => this.#entries.lookup(feed, ids));
  }

  /**
   * Records a feed's first sighting: the feed becomes known and the entries the
   * first-sighting limit held back are recorded as seen, in one transaction.
   */
  recordFirstSighting(feed: string, skipped: readonly Entry[], at: Date): Promise<void> {
    return this.#step(
      "record a first sighting",
      () => this.#entries.recordFirstSighting(feed, skipped, at),
    );
  }

  /** Records entries the feed's filter dropped: seen, never posted. */
  recordFiltered(feed: string, filtered: readonly Entry[], at: Date): Promise<void> {
    return this.#step(
      "record filtered entries",
      () => this.#entries.recordFiltered(feed, filtered, at),
    );
  }

  /** Marks an entry sent, after the messenger accepted it as `messageId` in `chatId`. */
  markSent(feed: string, entry: Entry, chatId: string, messageId: number, at: Date) {
    // On a server its time, not `at`: another process seeds Telegram's limits from it.
    return this.#step(
      "record a sent message",
      () => this.#entries.markSent(feed, entry, chatId, messageId, at, this.#dbClock === null),
    );
  }

  markRefused(feed: string, entry: Entry, chatId: string, at: Date) {
    return this.#step(
      "record a refused entry",
      () => this.#entries.markRefused(feed, entry, chatId, at),
    );
  }

  /** The stored validators of the feed's URLs (URLs without any are absent); not a copy. */
  validators(feed: string): Promise<ReadonlyMap<string, StoredValidators>> {
    return this.#step("read the state", () => this.#validators.get(feed));
  }

  /**
   * Records a finished run; when given (a fully successful run), the feed's validators are
   * replaced in the same transaction, so they never get ahead of the entries they cover.
   * `seen`, given when the run parsed the feed's documents, is the id of every entry they hold:
   * their last_seen_at (and, for a run that succeeded, the feed's last_parsed_at) is set to the
   * run's finish in that transaction too, which is what retention keeps entries by. An
   * unchanged feed (304, same body) passes neither, so the steady state writes nothing more.
   * A no-op run's row is buffered (see flush).
   */
  finishRun(
    run: RunRecord,
    validators?: Map<string, StoredValidators>,
    seen?: readonly string[],
  ): Promise<void> {
    return this.#step("record a run", async () => {
      if (!validators && !seen && isNoOp(run)) {
        this.#runs.buffer(run);
        if (this.#runs.buffered >= NO_OP_BUFFER) await this.flush();
        else this.#arm();
        return;
      }
      // This run's row goes after any no-op run of the same feed still buffered.
      if (this.#runs.hasBuffered(run.feed)) await this.#runs.writeBuffered();
      const statements = [this.#runs.insert(run)];
      if (seen) {
        statements.push(
          ...this.#entries.seen(run.feed, seen, run.finishedAt, run.outcome === "ok"),
        );
      }
      if (validators) {
        statements.push(...this.#validators.replace(run.feed, validators, run.finishedAt));
      }
      await this.#commits.commit(statements);
      if (validators) await this.#validators.replaced(run.feed, validators);
    });
  }

  /**
   * Writes the buffered rows of no-op runs, in one transaction. Called by the run's end (and
   * by finishRun when the buffer is full, and by a timer FLUSH_AFTER_MS after the first buffered
   * row): a process killed before then loses only these history rows, never delivery state.
   * Rejects with the failure of a timed write since the last flush, if any.
   */
  async flush(): Promise<void> {
    this.#disarm();
    const failed = this.#timedFlushError;
    this.#timedFlushError = null;
    await this.#step("record the runs of unchanged feeds", () => this.#runs.writeBuffered());
    if (failed !== null) {
      throw storeFailure("record the runs of unchanged feeds", this.path, failed);
    }
  }

  #flushTimer: TimerId | undefined;
  #timedWrite: Promise<void> | null = null;
  /** Why the last timed write failed; thrown by the next flush, whose caller can tell. */
  #timedFlushError: unknown = null;

  /** Makes sure buffered rows are written within FLUSH_AFTER_MS even if no run's end comes. */
  #arm(): void {
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = this.#clock.setTimeout(() => {
      this.#flushTimer = undefined;
      const writing: Promise<void> = this.#runs.writeBuffered()
        .catch((error) => void (this.#timedFlushError = error))
        .finally(() => {
          if (this.#timedWrite === writing) this.#timedWrite = null;
        });
      this.#timedWrite = writing;
    }, FLUSH_AFTER_MS);
  }

  #disarm(): void {
    if (this.#flushTimer === undefined) return;
    this.#clock.clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  /** Resolves once a write the timer started is done (before closing, say); starts none. */
  async whenWritten(): Promise<void> {
    while (this.#timedWrite) await this.#timedWrite;
  }

  /** Chat ids the messenger moved (group → supergroup): old id → new id. */
  async chatMigrations(): Promise<Map<string, string>> {
    const rs = await this.#step(
      "read the state",
      () => this.client.execute("SELECT from_chat, to_chat FROM chat_migrations"),
    );
    return new Map(rs.rows.map((row) => [String(row[0]), String(row[1])]));
  }

  async recordChatMigration(from: string, to: string, at: Date): Promise<void> {
    await this.#step("record a chat migration", () =>
      this.client.execute({
        sql: `INSERT INTO chat_migrations (from_chat, to_chat, migrated_at) VALUES (?, ?, ?)
            ON CONFLICT (from_chat) DO UPDATE SET to_chat = excluded.to_chat,
              migrated_at = excluded.migrated_at`,
        args: [from, to, at.toISOString()],
      }));
  }

  /**
   * Notes a feed's successful run at `at`, for the `last_success` table; written by the next
   * flushSuccesses, in one statement for all of them. The table is what start-up and `status`
   * read (on every machine, with remote state); the last-success file is a copy.
   */
  recordSuccess(feed: string, at: Date): void {
    this.#successes.set(feed, at.toISOString());
  }

  /** Writes the successes noted since the last call (one statement); never moves one back. */
  async flushSuccesses(): Promise<void> {
    if (this.#successes.size === 0) return;
    const rows = JSON.stringify([...this.#successes]);
    this.#successes = new Map();
    await this.#step("record the last successes", () =>
      this.#commits.commit([{
        sql: `INSERT INTO last_success (feed, at) SELECT value ->> 0, value ->> 1
              FROM json_each(?) WHERE true
              ON CONFLICT (feed) DO UPDATE SET at = max(at, excluded.at)`,
        args: [rows],
      }]));
  }

  /** Each feed's last successful run as the database records it. */
  async lastSuccesses(): Promise<Map<string, Date>> {
    const rs = await this.#step(
      "read the state",
      () => this.client.execute("SELECT feed, at FROM last_success"),
    );
    return new Map(rs.rows.map((row) => [String(row[0]), new Date(String(row[1]))]));
  }

  /**
   * The messages recorded as sent in the last `windowMs` of the database's clock, oldest first,
   * each with how long ago (on that clock): what Telegram still counts against its limits when
   * a process starts or takes a channel over. Never a comparison of one machine's clock with
   * another's.
   */
  async sentWithin(windowMs: number): Promise<{ chat: string; agoMs: number }[]> {
    const rs = await this.#step("read the state", () =>
      this.client.execute(timed(
        this.#dbClock,
        `SELECT chat_id, NOW_MS - CAST(round((julianday(sent_at) - 2440587.5) * 86400000.0)
           AS INTEGER)
         FROM entries WHERE status = 'sent'
           AND sent_at >= strftime('%Y-%m-%dT%H:%M:%fZ', (NOW_MS - ?1) / 1000.0, 'unixepoch')
         ORDER BY sent_at`,
        [windowMs],
      )));
    return rs.rows.map((row) => ({ chat: String(row[0]), agoMs: Number(row[1]) }));
  }

  /** One round trip of the lease protocol (leases.ts): renew, release, claim, count. */
  claimLeases(claim: LeaseClaim): Promise<LeaseHolding> {
    return this.#step("take the channels' leases", () => this.#leases.claim(claim));
  }

  /** Hands `channels` back (a clean stop), and the holder's presence with them when `all`. */
  releaseLeases(holder: string, channels: readonly string[], all: boolean): Promise<void> {
    return this.#step("hand the leases back", () => this.#leases.release(holder, channels, all));
  }

  /** Who holds which channel, and for how long yet on the database's clock: for `status`. */
  leaseHolders(): Promise<Map<string, LeaseView>> {
    return this.#step("read the state", () => this.#leases.all());
  }

  /**
   * Forgets what this process keeps in memory about `feeds` (validators, known feeds, the
   * latest no-op run row): another process sharing the database ran them meanwhile, or
   * retention dropped them.
   */
  async adopt(feeds: readonly string[]): Promise<void> {
    await this.#entries.forget(feeds);
    await this.#validators.forget(feeds);
    this.#runs.forget(feeds);
  }

  /** Runs a call of `step`; its failure becomes a StoreError naming the step and the file. */
  async #step<T>(step: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw storeFailure(step, this.path, error);
    }
  }

  /** Runs a read-only query; for tests and tools that inspect the state. */
  async query(sql: string, args: (string | number | null)[] = []): Promise<unknown[][]> {
    const rs = await this.client.execute({ sql, args });
    return rs.rows.map((row) => Array.from({ length: row.length }, (_, i) => row[i]));
  }
}
