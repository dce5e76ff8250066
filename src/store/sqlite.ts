/**
 * The forwarder's own database connection to a local file, through the SQLite built into Deno
 * (`node:sqlite`, which loads far faster than the `libsql` package's native addon; a libSQL
 * server, `db_url`, goes through remote.ts). Calls are synchronous underneath; they return
 * promises because that is sql.ts's interface, which remote.ts gives too.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { extendedCodeName, primaryCodeName } from "../sqlite/codes.ts";
import type { InStatement, ResultSet, Row, SqlClient } from "./sql.ts";

/**
 * A failed SQLite call, with SQLite's result code in the words libSQL uses (`SQLITE_FULL`,
 * extended `SQLITE_IOERR_WRITE`), which failure.ts turns into a reason a user can read.
 */
export class SqliteError extends Error {
  override name = "SqliteError";
  constructor(message: string, readonly code: string, readonly extendedCode: string) {
    super(message);
  }
}

/**
 * node:sqlite's error (`errcode`, the extended result code; absent for a failed `exec` or
 * open, which this module does not use for statements) as an SqliteError. Messages it does not
 * number are matched by SQLite's own words, so an open that fails still says why.
 */
function sqliteError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const errcode = (error as { errcode?: unknown }).errcode;
  let code: string | undefined;
  let extended: string | undefined;
  if (typeof errcode === "number") {
    code = primaryCodeName(errcode);
    extended = extendedCodeName(errcode);
  } else if (/^unable to open database file/.test(error.message)) {
    code = "SQLITE_CANTOPEN";
  }
  if (code === undefined) return error;
  return new SqliteError(error.message, code, extended ?? code);
}

const PREPARED_KEPT = 64;

/** One connection to a database file. */
export class Database implements SqlClient {
  readonly #db: DatabaseSync;
  /**
   * Prepared once per SQL text: the store runs the same few statements over and over. Bounded,
   * since a few texts vary (a placeholder list as long as a feed's entries).
   */
  readonly #statements = new Map<string, { statement: StatementSync; reader: boolean }>();

  private constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Opens (creating it if missing, unless `readOnly`) the database file at `path`. */
  static open(path: string, options: { readOnly?: boolean } = {}): Database {
    try {
      return new Database(new DatabaseSync(path, { readOnly: options.readOnly === true }));
    } catch (error) {
      throw sqliteError(error);
    }
  }

  execute(statement: InStatement): Promise<ResultSet> {
    try {
      return Promise.resolve(this.#run(statement));
    } catch (error) {
      return Promise.reject(sqliteError(error));
    }
  }

  /**
   * Runs the statements in one transaction: all of them commit, or none (the first failure
   * rolls back and rejects). The write lock is taken at the start (BEGIN IMMEDIATE), so a busy
   * database fails before anything ran rather than half-way.
   */
  batch(statements: readonly InStatement[]): Promise<ResultSet[]> {
    try {
      this.#run("BEGIN IMMEDIATE");
      try {
        const results = statements.map((s) => this.#run(s));
        this.#run("COMMIT");
        return Promise.resolve(results);
      } catch (error) {
        if (this.#db.isTransaction) this.#run("ROLLBACK");
        throw error;
      }
    } catch (error) {
      return Promise.reject(sqliteError(error));
    }
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }

  #run(statement: InStatement): ResultSet {
    const sql = typeof statement === "string" ? statement : statement.sql;
    const args = typeof statement === "string" ? [] : statement.args ?? [];
    let prepared = this.#statements.get(sql);
    if (prepared === undefined) {
      if (this.#statements.size >= PREPARED_KEPT) this.#statements.clear();
      const s = this.#db.prepare(sql);
      // Deno has it (as Node 24 does); the bundled Node types may predate it.
      (s as StatementSync & { setReturnArrays(on: boolean): void }).setReturnArrays(true);
      prepared = { statement: s, reader: s.columns().length > 0 };
      this.#statements.set(sql, prepared);
    }
    if (prepared.reader) {
      return { rows: prepared.statement.all(...args) as unknown as Row[], rowsAffected: 0 };
    }
    const { changes } = prepared.statement.run(...args);
    return { rows: [], rowsAffected: Number(changes) };
  }
}
