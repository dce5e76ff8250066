import { DatabaseSync } from "node:sqlite";
import { primaryCodeName } from "../../sqlite/codes.ts";
import { type Db, DbError, type Params, RefusedError, TooLargeError } from "./db.ts";
import { MAX_JSON_ANSWER_CHARS } from "./encode_json.ts";
import { KeptStatements } from "./kept.ts";
import { registerMath } from "./math.ts";
import { C, refusal, REVIEWED_MODULES } from "./rules.ts";
import { compilesQueryOnly, explainPrefix, singleStatement } from "./sql_text.ts";

/**
 * A local database file, through Deno's built-in SQLite (`node:sqlite`), the one engine for
 * local files: its build has no file functions (readfile, writefile, fsdir...) and no raw-page
 * modules, and everything a statement does passes SQLite's authorizer (rules.ts). Each
 * connection is also opened read-only unless --write, in defensive mode (no writable_schema,
 * no raw page writes), ATTACH limited to none, and bounds on value length, SQL length,
 * expression depth and LIKE patterns. The schema's views and triggers pass the authorizer as
 * the statement that uses them does; its stored expressions (generated columns, expression
 * indexes, CHECK, DEFAULT) may use any function the connection has that is not direct-only:
 * SQLite's innocuous built-ins and the math functions registered here, which are pure
 * (`trusted_schema = ON`: node:sqlite cannot mark a function innocuous, and with OFF a file
 * whose generated column uses sqrt() could not be opened). A function with side effects must
 * never be registered on these connections unless direct-only.
 */

/** The parts of node:sqlite's statement used here (Deno's bundled types predate some). */
interface StatementSync {
  setReturnArrays(on: boolean): void;
  setReadBigInts(on: boolean): void;
  columns(): { name: string }[];
  all(...params: unknown[]): unknown[][];
  get(...params: unknown[]): unknown[] | undefined;
  iterate(...params: unknown[]): IterableIterator<unknown[]>;
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
}

interface NodeDatabase {
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  function: DatabaseSync["function"];
  setAuthorizer(
    fn: ((action: number, ...args: (string | null)[]) => number) | null,
  ): void;
  enableDefensive(on: boolean): void;
  limits: {
    length: number;
    sqlLength: number;
    exprDepth: number;
    likePatternLength: number;
    attach: number;
  };
  isTransaction: boolean;
  close(): void;
}

/** The most bytes one value may hold; past it SQLite answers "string or blob too big". */
export const MAX_VALUE_BYTES = 64 * 1024 * 1024;
/** SQLite's heap limit in every worker: a query needing more fails cleanly with "out of memory". */
export const HARD_HEAP_LIMIT = 256 * 1024 * 1024;
const LIMITS = {
  length: MAX_VALUE_BYTES,
  sqlLength: 1_000_000,
  exprDepth: 1000,
  likePatternLength: 1000,
  attach: 0,
};

/**
 * Above this many columns a statement is read as it is, without the wrapper: its OR chain and
 * JSON array would pass SQLite's expression depth and argument limits.
 */
const MAX_WRAPPED_COLUMNS = 400;
/**
 * A batch read holds at most about this much row data: every value is limited to its share
 * (SQLite's length limit, for this statement only); a statement that meets the limit is read
 * again one row at a time.
 */
const BATCH_BYTES = 64 * 1024 * 1024;
const SCHEMA_VERSION = "PRAGMA schema_version";
/** Runs into a changed schema, which makes SQLite read it again. */
const TOUCH_SCHEMA = "SELECT 1 FROM sqlite_schema LIMIT 1";
/** How many prepared queries a connection keeps for reuse. */
export const READY_KEPT = 64;
/**
 * The largest statement kept prepared, in characters of its wrapped text (about 128 per column
 * besides the query's own; see KeptStatements). So the kept statements hold at most 64 × 16 KiB
 * of text; queries worth keeping are the short ones a page repeats.
 */
export const READY_TEXT_MAX = 16 * 1024;

/** The wrapper's text check of one column: text holding a NUL byte. */
function hasNul(c: string): string {
  return `typeof(${c}) = 'text' AND instr(${c}, char(0))`;
}

/**
 * The row check of one column: true for text holding a NUL byte, and also for a BLOB holding a
 * zero byte (only text and BLOBs sort at or after ''; hasNul then leaves the BLOB out of the
 * flag). One comparison instead of typeof's call and string compare, which were a measurable
 * share of a page's read (bench/NOTES.md).
 */
function mayHaveNul(c: string): string {
  return `${c} >= '' AND instr(${c}, char(0))`;
}

/**
 * The statement `sql` (with `n` result columns) wrapped so that text holding a NUL byte, which
 * node:sqlite cuts at the NUL, is not lost: each row gets one more column, NULL unless one of
 * its texts holds a NUL (or one of its BLOBs a zero byte), else a JSON array of the NUL texts'
 * bytes in hex (null for the other values).
 * Text that is not UTF-8 node:sqlite reads as TextDecoder does (U+FFFD). The CTE's column list
 * renames the columns by position, so duplicate names do not matter.
 *
 * With a `limit`, the statement ends after that many rows and one more. Without one (a stream)
 * a last row with a marker in one more column follows the rows: node:sqlite's iterate() ends
 * quietly on an error, as if the rows were all, and only the marker tells the two apart.
 */
function wrapped(sql: string, n: number, limit: number | undefined): string {
  const cols = Array.from({ length: n }, (_, i) => `c${i}`);
  const any = cols.map((c) => `(${mayHaveNul(c)})`).join(" OR ");
  const hexes = cols.map((c) => `iif(${hasNul(c)}, hex(${c}), NULL)`).join(",");
  const rows = `SELECT ${cols.join(",")}, CASE WHEN ${any} THEN json_array(${hexes}) END`;
  const head = `WITH courier_q(${cols.join(",")}) AS (\n${sql}\n) `;
  if (limit !== undefined) return `${head}${rows} FROM courier_q LIMIT ${limit + 1}`;
  const end = `SELECT ${cols.map(() => "NULL").join(",")}, NULL, 1`;
  return `${head}${rows}, NULL FROM courier_q UNION ALL ${end}`;
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
 * Whether a row read with integers as numbers holds -2^63, which node:sqlite hands over rounded
 * instead of refusing as it refuses every other integer beyond 2^53 (a real of that value also
 * matches: the page is then read again with BigInts, which keeps reals as they are).
 */
function holdsInt64Min(row: unknown[]): boolean {
  for (const v of row) if (v === -9223372036854775808) return true;
  return false;
}

/** Characters a row takes in a JSON answer, at least: so many rows make the answer cut. */
function jsonSizeAtLeast(row: unknown[]): number {
  let size = 0;
  for (const v of row) {
    if (typeof v === "string") size += v.length + 3;
    else if (v instanceof Uint8Array) size += Math.ceil(v.length / 3) * 4 + 30;
    else size += 2;
  }
  return size;
}

/** Binds as node:sqlite takes them: positional values spread, named ones as one object. */
function bindArgs(params: Params): unknown[] {
  if (params === undefined) return [];
  return Array.isArray(params) ? params : [params];
}

/** A stream that ended without its end marker: the statement failed (its message is lost). */
class StreamFailed extends DbError {
  constructor() {
    super("the query failed while its rows were read");
  }
}

/** A wrapped query kept prepared: its statement, column names and schema version. */
export interface Ready {
  stmt: StatementSync;
  names: string[];
  v: unknown;
}

/** The rules' state on one connection, as its authorizer reads it. */
interface Guard {
  /** Whether the current statement may write: a --write server's POST. */
  writing: boolean;
  /** Set while courier runs its own statements (transaction control, a schema it copies). */
  internal: boolean;
  /** Why the authorizer refused the statement being prepared or run, if it did. */
  refused: string | null;
  /** The shadow tables of the schema's virtual tables (see refusal in rules.ts). */
  shadows: ReadonlySet<string>;
  /** Reads the shadow tables again (after a schema change). */
  findShadows(): void;
  /** The error to throw for what SQLite threw: the rules' refusal first. */
  fail(error: unknown): Error;
}

/**
 * Opens `path` (or `:memory:`) through node:sqlite with SQLite's defences on and the rules'
 * authorizer installed: every connection that decides what a statement may do, a file's or the
 * copy of a remote schema's (openRuleCheck), is set up here, the same way. Throws a DbError when
 * it cannot be opened, or when this SQLite build has a virtual-table module the rules have not
 * reviewed.
 */
function openGuarded(path: string, readOnly: boolean): { db: NodeDatabase; g: Guard } {
  let db: NodeDatabase;
  try {
    db = new DatabaseSync(path, { readOnly }) as unknown as NodeDatabase;
  } catch (error) {
    throw new DbError((error as Error).message);
  }
  const pragmaTables = new Set<string>();
  const g: Guard = {
    writing: false,
    internal: false,
    refused: null,
    shadows: new Set(),
    findShadows: () => {
      g.internal = true;
      try {
        const stmt = db.prepare("SELECT name FROM pragma_table_list WHERE type = 'shadow'");
        stmt.setReturnArrays(true);
        g.shadows = new Set(stmt.all().map((r) => String((r as unknown[])[0])));
      } catch {
        g.shadows = new Set();
      } finally {
        g.internal = false;
      }
    },
    fail: (error: unknown): Error => {
      if (g.refused !== null) return new RefusedError(g.refused);
      if (error instanceof TooLargeError) return error;
      const e = error as { message?: string; errcode?: number };
      // SQLite refusing a direct-only function (load_extension) a view, trigger or stored
      // expression of the file uses: a refusal like the authorizer's.
      if (/^unsafe use of /.test(e?.message ?? "")) {
        return new RefusedError(`${e.message}: not allowed`);
      }
      // The worker's heap limit, not the host, is what the query ran into.
      if (typeof e?.errcode === "number" && primaryCodeName(e.errcode) === "SQLITE_NOMEM") {
        return new DbError(
          `out of memory: the query needs more than the worker's ${
            HARD_HEAP_LIMIT / 1024 / 1024
          } MiB`,
        );
      }
      return new DbError(e?.message ?? String(error));
    },
  };
  try {
    db.enableDefensive(true);
    Object.assign(db.limits, LIMITS);
    db.exec("PRAGMA trusted_schema = ON");
    db.exec(`PRAGMA hard_heap_limit = ${HARD_HEAP_LIMIT}`);
    registerMath(db);
    // The PRAGMAs' table-valued forms, by the names a statement reads them under.
    const list = db.prepare("SELECT 'pragma_' || name FROM pragma_pragma_list");
    list.setReturnArrays(true);
    for (const [name] of list.all()) pragmaTables.add(String(name));
    const modules = db.prepare("SELECT name FROM pragma_module_list");
    modules.setReturnArrays(true);
    for (const [name] of modules.all()) {
      const module = String(name);
      if (!REVIEWED_MODULES.has(module) && !module.startsWith("pragma_")) {
        throw new DbError(`this SQLite build has a virtual-table module not reviewed: ${module}`);
      }
    }
    db.setAuthorizer((action, a, b, schema) => {
      if (g.internal) return C.SQLITE_OK;
      const table = a === null
        ? undefined
        : { shadow: g.shadows.has(a), pragma: pragmaTables.has(a.toLowerCase()) };
      const why = refusal(action, a, b, schema, g.writing, table);
      if (why === null) return C.SQLITE_OK;
      g.refused ??= why;
      return C.SQLITE_DENY;
    });
  } catch (error) {
    db.close();
    throw error instanceof DbError ? error : new DbError((error as Error).message);
  }
  return { db, g };
}

/** Decides what a statement sent to a remote database may do, by the rules of a local file. */
export interface RuleCheck {
  /**
   * Makes the copy's schema the one these statements create (a remote database's
   * `sqlite_schema.sql`, in order); a statement this build cannot run is left out.
   */
  load(statements: readonly string[]): void;
  /**
   * Prepares `sql` on the copy under the rules (`write`: a --write POST), without running it;
   * throws RefusedError when the rules refuse it, DbError for SQLite's own error.
   */
  check(sql: string, write: boolean): void;
  close(): void;
}

/**
 * The rules for a remote database: its schema copied into an empty in-memory database that has
 * the same defences and authorizer as a local file, where each statement is prepared (never
 * run) before it is sent. So a remote database refuses what a local file refuses, with the same
 * 403s and messages; what the remote server adds on top (its own rules, a read-only token)
 * still applies there.
 */
export function openRuleCheck(): RuleCheck {
  let { db, g } = openGuarded(":memory:", false);
  return {
    load(statements) {
      db.close();
      ({ db, g } = openGuarded(":memory:", false));
      g.internal = true;
      try {
        for (const sql of statements) {
          try {
            db.exec(sql);
          } catch { /* a module or shape this build lacks, or made already (shadow tables) */ }
        }
      } finally {
        g.internal = false;
      }
      g.findShadows();
    },
    check(sql, write) {
      g.refused = null;
      g.writing = write;
      try {
        db.prepare(sql);
      } catch (error) {
        throw g.fail(error);
      }
      // VACUUM attaches its target only as it runs, where a local file's authorizer refuses it:
      // preparing it shows nothing, so its keyword decides here.
      const { tokens } = singleStatement(sql);
      const head = tokens[explainPrefix(tokens).inner];
      if (head?.kind === "word" && head.value.toUpperCase() === "VACUUM") {
        throw new RefusedError(refusal(C.SQLITE_ATTACH, null, null, null, write)!);
      }
      // A refusal the statement's preparation survived (SQLite went on after a DENY).
      if (g.refused !== null) throw new RefusedError(g.refused);
    },
    close() {
      db.close();
    },
  };
}

/**
 * Opens `path` through node:sqlite, read-only unless `write`, with SQLite's defences on.
 * Throws a DbError when it cannot be opened, or when this SQLite build has a virtual-table
 * module the rules have not reviewed. `ready`: where its wrapped queries are kept prepared.
 */
export function openLocal(
  path: string,
  write: boolean,
  ready = new KeptStatements<Ready>(READY_KEPT, READY_TEXT_MAX),
): Db {
  const { db, g } = openGuarded(path, !write);
  const fail = g.fail;

  const prepare = (sql: string): StatementSync => {
    try {
      const stmt = db.prepare(sql);
      stmt.setReturnArrays(true);
      stmt.setReadBigInts(true);
      return stmt;
    } catch (error) {
      throw fail(error);
    }
  };
  /**
   * A request's reads share one read transaction (see Db.hold): each statement run on its own
   * is a transaction of its own, whose locking, journal checks and header read cost about as
   * much as a point query. Begun at the request's first read and ended once its statement's
   * rows are read, so the lock is not held while they are written.
   */
  let holding = false;
  let began = false;
  /** BEGIN and COMMIT, prepared once: preparing them for every request cost a point query. */
  const controls = new Map<string, StatementSync>();
  const control = (sql: string) => {
    g.internal = true;
    try {
      let stmt = controls.get(sql);
      if (!stmt) controls.set(sql, stmt = db.prepare(sql));
      stmt.run();
    } catch (error) {
      throw fail(error);
    } finally {
      g.internal = false;
    }
  };
  const enter = () => {
    if (!holding || db.isTransaction) return;
    control("BEGIN");
    began = true;
  };
  const leave = () => {
    holding = false;
    if (!began) return;
    began = false;
    // An error SQLite answers by rolling back (out of memory) may have ended it already.
    if (db.isTransaction) control("COMMIT");
  };
  const kept = new Map<string, StatementSync>();
  /** The one row of an internal read, from a statement kept prepared. */
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
      throw fail(error);
    }
  };
  let seen: unknown;
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
      g.findShadows();
      seen = v;
    }
    return v;
  };
  /**
   * Wrapped queries kept prepared, by mode, limit and text: only after a run to the end, only
   * at the schema version they were prepared at, never with parameters (SQLite keeps a
   * statement's bindings from one run to the next). SQLite prepares a kept statement again
   * after a schema change, through the authorizer, under the rules of the mode it is kept for.
   */
  const remember = (key: string, entry: Ready) =>
    ready.keep(key, entry, key.length + 128 * entry.names.length);
  /**
   * All rows of a wrapped statement up to its limit, in one call, each value held to its share
   * of BATCH_BYTES; null when a value is past its share (then read it row by row). all() ends
   * the statement whatever happens (it resets it on the way out).
   */
  const batch = (stmt: StatementSync, params: Params, n: number, limit: number) => {
    db.limits.length = Math.max(1, Math.floor(BATCH_BYTES / ((limit + 1) * (n + 1))));
    try {
      // Integers as numbers, which cost less to make and to write than BigInts; a page with
      // one beyond 2^53 (node:sqlite then refuses the whole read) is read again as BigInts.
      stmt.setReadBigInts(false);
      try {
        const rows = stmt.all(...bindArgs(params));
        if (!rows.some(holdsInt64Min)) return rows;
      } catch (error) {
        if ((error as { code?: string }).code !== "ERR_OUT_OF_RANGE") throw error;
      } finally {
        stmt.setReadBigInts(true);
      }
      return stmt.all(...bindArgs(params));
    } catch (error) {
      if ((error as { errcode?: number }).errcode === 18 && g.refused === null) return null;
      throw fail(error);
    } finally {
      db.limits.length = LIMITS.length;
    }
  };
  /**
   * The rows of a statement wrapped without a limit, one at a time, until `onRow` says stop.
   * Throws when the rows ended without the wrapper's end marker: the statement failed.
   */
  const stream = (
    stmt: StatementSync,
    params: Params,
    begin: () => void,
    onRow: (row: unknown[]) => boolean,
  ) => {
    let it: IterableIterator<unknown[]> | undefined;
    let first = true;
    try {
      it = stmt.iterate(...bindArgs(params));
      for (;;) {
        const next = it.next();
        if (next.done) break;
        // Begun only once the statement has produced something: a statement that fails at
        // its first step (a refused pragma function, a missing function in a module's SQL)
        // is an error answer, not a download that breaks off.
        if (first) begin();
        first = false;
        const row = next.value;
        if (row.pop() === 1n) return;
        if (!onRow(unflag(row))) return;
      }
    } catch (error) {
      throw fail(error);
    } finally {
      it?.return?.();
    }
    if (g.refused !== null) throw new RefusedError(g.refused);
    throw new StreamFailed();
  };
  /**
   * A page of a query the wrapper cannot hold (more than MAX_WRAPPED_COLUMNS columns, a column
   * whose collation this SQLite lacks), read as it is up to `limit` rows and one more, as a
   * wrapped page is, and held to the same bounds: each value to its share of BATCH_BYTES (past
   * it, the page is read again with each value held to its share of one row, and one past that
   * is a 413), and the rows to about what a JSON answer takes (a longer page would be cut
   * there anyway). Without them 1,001 rows of 401 wide columns ended the worker. iterate() ends
   * quietly on an error, so a query that ends before that is read again with all(), which
   * throws SQLite's error: its rows are fewer than the page.
   * (Other statements read as they are, PRAGMAs, EXPLAINs and RETURNING, are read whole: their
   * rows are bounded by the schema, the program or what the statement wrote.)
   */
  const pageAsItIs = (
    stmt: StatementSync,
    params: Params,
    limit: number,
    n: number,
  ): unknown[][] => {
    const read = (share: number): unknown[][] => {
      db.limits.length = Math.max(1, Math.floor(share));
      try {
        const rows: unknown[][] = [];
        let size = 0;
        const it = stmt.iterate(...bindArgs(params));
        try {
          for (let next = it.next(); !next.done; next = it.next()) {
            if (rows.push(next.value) > limit) return rows;
            size += jsonSizeAtLeast(next.value);
            if (size > MAX_JSON_ANSWER_CHARS) return rows;
          }
        } finally {
          it.return?.();
        }
        return stmt.all(...bindArgs(params));
      } finally {
        db.limits.length = LIMITS.length;
      }
    };
    try {
      try {
        return read(BATCH_BYTES / ((limit + 1) * (n + 1)));
      } catch (error) {
        if ((error as { errcode?: number }).errcode !== 18 || g.refused !== null) throw error;
        return read(BATCH_BYTES / (n + 1));
      }
    } catch (error) {
      if ((error as { errcode?: number }).errcode !== 18 || g.refused !== null) throw error;
      throw new TooLargeError(
        `a value is larger than ${
          Math.floor(BATCH_BYTES / (n + 1))
        } bytes, its share of a row of ${n} columns: select fewer columns, or download the rows`,
      );
    }
  };
  // deno-lint-ignore require-await -- async so that whatever it throws becomes a rejection.
  const run: Db["run"] = async (sql, params, options, onColumns, onRow, onRows) => {
    g.refused = null;
    g.writing = options.write;
    const writing = g.writing;
    const limit = options.limit;
    // Only a query reads in the request's transaction: other statements run on their own.
    if (holding && (writing || !compilesQueryOnly(sql))) leave();
    const version = schemaVersion();
    const reuse = params === undefined;
    const key = `${writing}\n${limit}\n${sql}`;
    // Out of the kept ones while it runs: put back only after a run to its end.
    const found = reuse ? ready.take(key) : undefined;
    const hit = found !== undefined && found.v === version ? found : undefined;
    const first = hit ? undefined : prepare(sql);
    const names = hit ? hit.names : first!.columns().map((c) => c.name);
    // A download's head goes out with its columns: each path names them only once the
    // statement has run or produced a row, so a statement that fails is an error answer.
    if (names.length === 0) {
      try {
        const info = first!.run(...bindArgs(params));
        onColumns([]);
        return { changes: Number(info.changes), lastInsertRowid: info.lastInsertRowid };
      } catch (error) {
        throw fail(error);
      }
    }
    let stmt = hit?.stmt;
    if (!stmt && names.length <= MAX_WRAPPED_COLUMNS) {
      try {
        stmt = prepare(wrapped(sql, names.length, limit));
      } catch {
        // Not a statement a CTE can hold (a PRAGMA, an EXPLAIN, RETURNING): read as it is.
        g.refused = null;
      }
    }
    if (!stmt) {
      let rows: unknown[][];
      try {
        rows = limit !== undefined && !writing && compilesQueryOnly(sql)
          ? pageAsItIs(first!, params, limit, names.length)
          : first!.all(...bindArgs(params));
      } catch (error) {
        throw fail(error);
      }
      if (holding) leave();
      onColumns(names);
      for (const row of rows) if (!onRow(row)) break;
      return {};
    }
    const begin = () => onColumns(names);
    if (limit === undefined) {
      stream(stmt, params, begin, onRow);
      if (holding) leave();
      return {};
    }
    const rows = batch(stmt, params, names.length, limit);
    if (rows === null) {
      // A value past its batch share: read one row at a time, the answer's own bounds apply.
      let seen = 0;
      try {
        stream(prepare(wrapped(sql, names.length, undefined)), params, begin, (row) => {
          seen++;
          return onRow(row);
        });
      } catch (error) {
        if (!(error instanceof StreamFailed)) throw error;
        // For SQLite's own message, the rows up to the one that failed are read again in one
        // call (they fitted in the answer, so they fit in memory).
        try {
          prepare(wrapped(sql, names.length, seen)).all(...bindArgs(params));
        } catch (again) {
          throw fail(again);
        }
        throw error;
      }
      if (holding) leave();
      return {};
    }
    if (holding) leave();
    begin();
    for (const row of rows) unflag(row);
    if (onRows) onRows(rows);
    else for (const row of rows) if (!onRow(row)) break;
    if (reuse) remember(key, { stmt, names, v: version });
    return {};
  };
  return {
    all(sql, params = []) {
      const rows: unknown[][] = [];
      return run(sql, params, { write: false }, () => {}, (r) => {
        rows.push(r);
        return true;
      }).then(() => rows);
    },
    run,
    hold() {
      holding = true;
    },
    release() {
      leave();
    },
    inTransaction: () => db.isTransaction,
    close() {
      db.close();
    },
  };
}
