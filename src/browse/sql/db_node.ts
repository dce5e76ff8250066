import { DatabaseSync } from "node:sqlite";
import { type Db, DbError, type Params, programOf } from "./db_core.ts";
import { primaryCodeName } from "../../store/sqlite.ts";
import { compilesQueryOnly } from "./sql_text.ts";

/**
 * A local file read through Deno's built-in SQLite (`node:sqlite`), for read-only workers: it
 * hands a page of rows to JS several times faster than the libsql addon, which is then loaded
 * only when needed.
 * Its SQLite build lacks some of libsql's functions and modules (generate_series, the math
 * functions, regexp, vectors) and cannot read a schema that uses them: a statement it cannot
 * prepare is answered by libsql instead (see Executor's fallback), as is a file it cannot open.
 */

/** The parts of Deno's node:sqlite used here (its bundled types predate some of them). */
interface StatementSync {
  setReturnArrays(on: boolean): void;
  setReadBigInts(on: boolean): void;
  columns(): { name: string }[];
  all(...params: unknown[]): unknown[][];
  get(...params: unknown[]): unknown[] | undefined;
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
}

interface NodeDatabase {
  prepare(sql: string): StatementSync;
  /** SQLite's run-time limits of this connection. */
  limits: { length: number };
  isTransaction: boolean;
  close(): void;
}

function wrapNode(error: unknown, fallback = false): DbError {
  const e = error as { message?: string; errcode?: number };
  const code = typeof e?.errcode === "number" ? primaryCodeName(e.errcode) ?? "" : "";
  return new DbError(e?.message ?? String(error), code, fallback);
}

/** Binds as node:sqlite takes them: positional values spread, named ones as one object. */
function bindArgs(params: Params): unknown[] {
  if (params === undefined) return [];
  return Array.isArray(params) ? params : [params];
}

/** The wrapper's text check of one column: text holding a NUL byte. */
function hasNul(c: string): string {
  return `typeof(${c}) = 'text' AND instr(${c}, char(0))`;
}

/**
 * Above this many columns a statement is left to libsql: the wrapper's OR chain and JSON array
 * would pass SQLite's expression depth and argument limits.
 */
const MAX_WRAPPED_COLUMNS = 400;

/**
 * The statement `sql` (with `n` result columns) wrapped so that text holding a NUL byte, which
 * node:sqlite cuts at the NUL, is not lost: each row gets one more column, NULL unless one of
 * its texts holds a NUL, else a JSON array of those texts' bytes in hex (null for the others).
 * Every other value is read as it is: node:sqlite turns text that is not UTF-8 into U+FFFD as
 * TextDecoder does (held by a test). The CTE's column list renames the columns by position, so
 * duplicate names do not matter. `limit` ends the statement after that many rows.
 */
function flagWrapped(sql: string, n: number, limit: number | undefined): string {
  const cols = Array.from({ length: n }, (_, i) => `c${i}`);
  const any = cols.map((c) => `(${hasNul(c)})`).join(" OR ");
  const hexes = cols.map((c) => `iif(${hasNul(c)}, hex(${c}), NULL)`).join(",");
  return `WITH courier_q(${cols.join(",")}) AS (\n${sql}\n) SELECT ${
    cols.join(",")
  }, CASE WHEN ${any} THEN json_array(${hexes}) END FROM courier_q${
    limit === undefined ? "" : ` LIMIT ${limit + 1}`
  }`;
}

const lossy = new TextDecoder();

/** A wrapped row back as the statement's values, in place (its flag column removed). */
function unflag(row: unknown[]): unknown[] {
  const flag = row.pop();
  if (typeof flag === "string") {
    const hexes = JSON.parse(flag) as (string | null)[];
    for (let i = 0; i < hexes.length; i++) {
      if (hexes[i] !== null) row[i] = lossy.decode(Uint8Array.fromHex(hexes[i]!));
    }
  }
  return row;
}

/**
 * A batch read holds at most about this much row data: every value is limited to its share
 * (SQLite's length limit, for this statement only), and a statement that meets the limit is
 * answered by libsql, which reads one row at a time.
 */
const BATCH_BYTES = 64 * 1024 * 1024;

const SCHEMA_VERSION = "PRAGMA schema_version";
/** Runs into a changed schema, which makes SQLite read it again. */
const TOUCH_SCHEMA = "SELECT 1 FROM sqlite_schema LIMIT 1";
/** How many prepared queries a connection keeps for reuse. */
const READY_KEPT = 64;

/** A wrapped query kept prepared: its statement, text, column names and schema version. */
interface Ready {
  stmt: StatementSync;
  sql: string;
  names: string[];
  v: unknown;
}

/** Opens `path` read-only through node:sqlite. */
export function openLocalNode(path: string): Db {
  let db: NodeDatabase;
  try {
    db = new DatabaseSync(path, { readOnly: true }) as unknown as NodeDatabase;
  } catch (error) {
    throw wrapNode(error);
  }
  // Nothing is known of the settings until the first check.
  let unsettled = true;
  const kept = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    if (!compilesQueryOnly(sql)) unsettled = true;
    try {
      const stmt = db.prepare(sql);
      stmt.setReturnArrays(true);
      stmt.setReadBigInts(true);
      return stmt;
    } catch (error) {
      throw wrapNode(error, true);
    }
  };
  // all() resets the statement when it ends, which ends an EXPLAIN too.
  const explain = (sql: string): { stmt: StatementSync; rows: unknown[][] } => {
    const stmt = prepare(`EXPLAIN ${sql}`);
    try {
      return { stmt, rows: stmt.all() };
    } catch (error) {
      throw wrapNode(error);
    }
  };
  /**
   * A request's reads share one read transaction (see Db.hold): each statement run on its own
   * is a transaction of its own, whose locking, journal checks and header read cost about as
   * much as a point query, and a request made three. Begun at the request's first read and
   * ended once its statement's rows are read, so the lock is not held while they are written.
   * Prepared outside `prepare`, which would count them as statements that change settings.
   */
  let holding = false;
  /** Set while the open transaction is the one begun here: only that one is ended here. */
  let began = false;
  let begin: StatementSync | undefined;
  let commit: StatementSync | undefined;
  const enter = () => {
    if (!holding || db.isTransaction) return;
    try {
      (begin ??= db.prepare("BEGIN")).run();
      began = true;
    } catch (error) {
      throw wrapNode(error);
    }
  };
  const leave = () => {
    holding = false;
    if (!began) return;
    began = false;
    // An error SQLite answers by rolling back (out of memory) may have ended it already.
    if (!db.isTransaction) return;
    try {
      (commit ??= db.prepare("COMMIT")).run();
    } catch (error) {
      throw wrapNode(error);
    }
  };
  /** The one row of an internal read, from a statement kept prepared (see Db.often). */
  const oftenRow = (sql: string): unknown[] => {
    enter();
    let stmt = kept.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      kept.set(sql, stmt);
    }
    try {
      // get() steps once and resets, which ends the statement.
      return stmt.get() ?? [];
    } catch (error) {
      throw wrapNode(error);
    }
  };
  let seen: unknown;
  /** While a run's check lists its program: the schema version its statement was prepared at. */
  let preparedAt: unknown;
  /**
   * The schema version, with the connection's copy of the schema brought up to it. A change
   * made by another connection shows in the version at once, but this one prepares against its
   * old copy until a statement of its own runs into the change: `SELECT *` would list the old
   * columns, and the wrapper built on them fail when SQLite prepares it again as it runs.
   */
  const schemaVersion = () => {
    const v = oftenRow(SCHEMA_VERSION)[0];
    if (v !== seen) {
      oftenRow(TOUCH_SCHEMA);
      seen = v;
    }
    return v;
  };
  /**
   * Wrapped queries kept prepared, by their limit and text, as openLocal keeps them: only
   * after a run to the end with a quiet check, only at the schema version they were prepared
   * at, never with parameters. Every run is still checked.
   */
  const ready = new Map<string, Ready>();
  /**
   * All rows of a wrapped statement up to its limit, in one call, each value held to its share
   * of BATCH_BYTES. all() ends the statement whatever happens (it resets it on the way out),
   * so nothing is left holding a read transaction.
   */
  const batch = (stmt: StatementSync, params: Params, n: number, limit: number) => {
    const before = db.limits.length;
    db.limits.length = Math.max(1, Math.floor(BATCH_BYTES / ((limit + 1) * (n + 1))));
    try {
      // Integers as numbers, which cost less to make and to write than BigInts; a page with
      // one beyond 2^53 (node:sqlite then refuses the whole read) is read again as BigInts.
      stmt.setReadBigInts(false);
      try {
        return stmt.all(...bindArgs(params));
      } catch (error) {
        if ((error as { code?: string }).code !== "ERR_OUT_OF_RANGE") throw error;
        stmt.setReadBigInts(true);
        return stmt.all(...bindArgs(params));
      } finally {
        stmt.setReadBigInts(true);
      }
    } catch (error) {
      const e = error as { errcode?: number; code?: string };
      // A value past its share, or parameters it does not bind as libsql does.
      const elsewhere = e.errcode === 18 || e.errcode === 25 || e.code !== "ERR_SQLITE_ERROR";
      throw wrapNode(error, elsewhere);
    } finally {
      db.limits.length = before;
    }
  };
  const run: Db["run"] = async (sql, params, options, onColumns, onRow, onRows) => {
    const limit = options.limit !== undefined && Number.isFinite(options.limit)
      ? options.limit
      : undefined;
    // Only without parameters: SQLite keeps a statement's bindings from one run to the next.
    const reuse = options.wrap && !options.explain && params === undefined && limit !== undefined;
    const key = `${limit}\n${sql}`;
    // Only a query reads in the request's transaction: other statements (a PRAGMA) run as
    // they always did, some of them refused inside a transaction.
    if (holding && !compilesQueryOnly(sql)) leave();
    const version = schemaVersion();
    const found = reuse ? ready.get(key) : undefined;
    // Out of the map while it runs: put back only after a run to its end.
    if (found) ready.delete(key);
    const hit = found !== undefined && found.v === version ? found : undefined;
    const first = hit ? undefined : prepare(sql);
    let names = hit ? hit.names : first!.columns().map((c) => c.name);
    const reader = names.length > 0;
    let stmt = hit ? hit.stmt : first!;
    let runSql = sql;
    let wrapped = hit !== undefined;
    if (hit) runSql = hit.sql;
    else if (reader && options.wrap) {
      // Without a limit (a download) rows must be read one at a time, which node:sqlite's
      // iterate() cannot do faithfully: it ends quietly on an error, as if the rows were all.
      if (limit === undefined) throw new DbError("rows without a limit", "", true);
      if (names.length > MAX_WRAPPED_COLUMNS) {
        throw new DbError(`more than ${MAX_WRAPPED_COLUMNS} columns`, "", true);
      }
      runSql = flagWrapped(sql, names.length, limit);
      try {
        stmt = prepare(runSql);
        wrapped = true;
      } catch {
        // Not a query a CTE can hold (a PRAGMA): read as it is.
        runSql = sql;
      }
    }
    // The check lists the program for the schema the statement was prepared at (see often).
    preparedAt = version;
    let quiet: boolean | undefined;
    try {
      ({ quiet } = await options.check(runSql));
    } finally {
      preparedAt = undefined;
    }
    if (!quiet) unsettled = true;
    if (!reader) {
      onColumns([]);
      try {
        const info = first!.run(...bindArgs(params));
        return { changes: Number(info.changes), lastInsertRowid: info.lastInsertRowid };
      } catch (error) {
        throw wrapNode(error);
      }
    }
    // A statement a CTE cannot hold is, once checked in a read-only worker, a PRAGMA or an
    // EXPLAIN (a write is refused): a few rows, bounded by the schema or the program.
    let rows: unknown[][];
    if (wrapped) rows = batch(stmt, params, names.length, limit!);
    else {
      try {
        rows = stmt.all(...bindArgs(params));
      } catch (error) {
        throw wrapNode(error);
      }
    }
    if (holding) leave();
    if (options.namesFrom !== undefined) {
      try {
        names = prepare(options.namesFrom).columns().map((c) => c.name);
      } catch { /* keep the rewritten statement's names */ }
    }
    onColumns(names);
    if (onRows) {
      if (wrapped) { for (const row of rows) unflag(row); }
      onRows(rows);
    } else for (const row of rows) if (!onRow(wrapped ? unflag(row) : row)) break;
    if (reuse && quiet === true && wrapped) remember(key, { stmt, sql: runSql, names, v: version });
    return {};
  };
  const remember = (key: string, entry: Ready) => {
    ready.set(key, entry);
    if (ready.size > READY_KEPT) ready.delete(ready.keys().next().value!);
  };
  return {
    remote: false,
    often(sql) {
      // During a check, the schema version is the one the statement was prepared at, read just
      // before: a later read could name a newer schema than the program being listed, and
      // each read is a read transaction of its own (a quarter of a point query's time).
      if (sql === SCHEMA_VERSION && preparedAt !== undefined) return Promise.resolve([preparedAt]);
      return Promise.resolve(oftenRow(sql));
    },
    all(sql, params = []) {
      // An internal statement counts as one that may change a setting (as in openLocal).
      unsettled = true;
      let stmt: StatementSync;
      try {
        schemaVersion();
        stmt = prepare(sql);
      } catch (error) {
        return Promise.reject(error);
      }
      const n = stmt.columns().length;
      let wrapped: StatementSync | undefined;
      if (n > 0 && n <= MAX_WRAPPED_COLUMNS) {
        try {
          wrapped = prepare(flagWrapped(sql, n, undefined));
        } catch { /* not a query a CTE can hold: read as it is */ }
      }
      try {
        if (!wrapped) {
          return Promise.resolve(n > 0 ? stmt.all(...params) : (stmt.run(...params), []));
        }
        return Promise.resolve(wrapped.all(...params).map(unflag));
      } catch (error) {
        return Promise.reject(wrapNode(error));
      }
    },
    program: (sql, probes) => programOf(sql, probes, explain),
    run,
    hold() {
      holding = true;
    },
    release() {
      leave();
    },
    inTransaction: () => db.isTransaction,
    settingsMayHaveChanged: () => unsettled,
    settingsChecked() {
      unsettled = false;
    },
    close() {
      db.close();
    },
  };
}
