import Database from "libsql";
import { createClient } from "@libsql/client";
import { fileUri } from "./db_url.ts";
import { type Db, type Params, programOf, toOp, wrap } from "./db_core.ts";
import { compilesQueryOnly } from "./sql_text.ts";

export { fileUri, isRemote, localPath } from "./db_url.ts";
export { type Db, DbError, type Params, type RunOptions } from "./db_core.ts";

interface LibsqlIterator {
  next(): { done?: boolean; value?: unknown[] };
}

interface LibsqlStatement {
  reader: boolean;
  raw(on?: boolean): LibsqlStatement;
  columns(): { name: string }[];
  iterate(...params: unknown[]): LibsqlIterator;
  all(...params: unknown[]): unknown[][];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): { changes: number; lastInsertRowid: unknown };
}

/** About this much row data is fetched from the driver at a time. */
const BATCH_BYTES = 1024 * 1024;

function rowBytes(row: unknown[]): number {
  let n = 16;
  for (const v of row) {
    n += typeof v === "string" ? v.length : v instanceof Uint8Array ? v.byteLength : 8;
  }
  return n;
}

/**
 * Sizes the driver's row batches by the rows' size. The driver converts 100 rows per native
 * call; with 1 MB cells that is 100 MB held before the first row can be looked at (a worker
 * reached 200 MB answering a 16 MB capped answer). The first batch is one row, later ones hold
 * about BATCH_BYTES. Works through the iterator's own fields (libsql is pinned to 0.5.29); an
 * iterator without them is left as it is.
 */
class Batches {
  #size = 1;
  #it: { nextRows?: unknown; nextRowIndex?: number };

  constructor(it: LibsqlIterator) {
    this.#it = it as unknown as { nextRows?: unknown; nextRowIndex?: number };
  }

  refill(): void {
    const it = this.#it;
    if (!Array.isArray(it.nextRows) || typeof it.nextRowIndex !== "number") return;
    if (it.nextRowIndex >= it.nextRows.length) {
      it.nextRows = new Array(this.#size);
      // The driver fetches a new batch when the index is 100, whatever the array's length.
      it.nextRowIndex = 100;
    }
  }

  saw(row: unknown[]): void {
    this.#size = Math.max(1, Math.min(100, Math.floor(BATCH_BYTES / rowBytes(row))));
  }
}

function bindArgs(params: Params): unknown[] {
  if (params === undefined) return [];
  return [params];
}

const lossy = new TextDecoder();

/**
 * The statement `sql` (with `n` result columns) wrapped so that SQLite hands every text value
 * over as bytes and every BLOB as hex text. The driver aborts the whole process on text that is
 * not UTF-8; bytes are decoded here with U+FFFD instead. Swapping the two kinds keeps them apart
 * without a column of per-row type flags, which cost more to build and convert than the values.
 * The CTE's column list renames the columns by position, so duplicate names do not matter.
 */
function byteWrapped(sql: string, n: number): string {
  const cols = Array.from({ length: n }, (_, i) => `c${i}`);
  const values = cols.map((c) =>
    `CASE typeof(${c}) WHEN 'text' THEN CAST(${c} AS BLOB) WHEN 'blob' THEN hex(${c}) ELSE ${c} END`
  );
  return `WITH courier_q(${cols.join(",")}) AS (\n${sql}\n) SELECT ${
    values.join(",")
  } FROM courier_q`;
}

/** A wrapped row back as the statement's values, in place. */
function unwrapRow(row: unknown[]): unknown[] {
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (v instanceof Uint8Array) row[i] = lossy.decode(v);
    else if (typeof v === "string") row[i] = Uint8Array.fromHex(v);
  }
  return row;
}

const SCHEMA_VERSION = "PRAGMA schema_version";
/** How many prepared queries a read-only connection keeps for reuse. */
const READY_KEPT = 64;

/** A local file through the `libsql` driver (synchronous; the worker process isolates it). */
export function openLocal(path: string, write: boolean): Db {
  let db: Database.Database;
  try {
    db = new Database(fileUri(path, write));
    db.defaultSafeIntegers(true);
  } catch (error) {
    throw wrap(error);
  }
  // Nothing is known of the settings until the first check.
  let unsettled = true;
  const kept = new Map<string, LibsqlStatement>();
  const prepare = (sql: string): LibsqlStatement => {
    if (!compilesQueryOnly(sql)) unsettled = true;
    try {
      return db.prepare(sql) as unknown as LibsqlStatement;
    } catch (error) {
      throw wrap(error);
    }
  };
  /** Resets an EXPLAIN statement: `get()` steps it once and resets it, which ends it. */
  const resetExplain = (stmt: LibsqlStatement) => {
    try {
      stmt.get();
    } catch { /* an error also leaves it reset */ }
  };
  const explain = (sql: string): { stmt: LibsqlStatement; rows: unknown[][] } => {
    const stmt = prepare(`EXPLAIN ${sql}`);
    try {
      return { stmt, rows: stmt.raw().all() };
    } catch (error) {
      throw wrap(error);
    } finally {
      resetExplain(stmt);
    }
  };
  /**
   * A read-only connection's wrapped queries, prepared, by their text: preparing the text and
   * its wrapper was a quarter of a point query's time. Kept only after a query ran to its end
   * with a quiet check (no virtual table), and used only at the schema version it was
   * prepared at: the wrapper names the columns the text had then. Every run is still checked.
   * Queries with parameters are not kept.
   */
  const ready = new Map<string, { stmt: LibsqlStatement; names: { name: string }[]; v: unknown }>();
  /** The one row of an internal read, from a statement kept prepared (see often). */
  const oftenRow = (sql: string): unknown[] => {
    let stmt = kept.get(sql);
    if (!stmt) {
      stmt = prepare(sql).raw();
      kept.set(sql, stmt);
    }
    try {
      // get() steps once and resets, which ends the statement: one native call where all()
      // made three (these statements have one row).
      return (stmt.get() as unknown[] | undefined) ?? [];
    } catch (error) {
      throw wrap(error);
    }
  };
  const schemaVersion = () => oftenRow(SCHEMA_VERSION)[0];
  const run: Db["run"] = async (sql, params, options, onColumns, onRow) => {
    // Only without parameters: SQLite keeps a statement's bindings from one run to the next.
    const reuse = !write && options.wrap && !options.explain && params === undefined;
    const version = reuse ? schemaVersion() : undefined;
    const found = reuse ? ready.get(sql) : undefined;
    // Out of the map while it runs: put back only after a run to its end.
    if (found) ready.delete(sql);
    const hit = found !== undefined && found.v === version ? found : undefined;
    const first = hit ? undefined : prepare(sql);
    const reader = hit !== undefined || first!.reader;
    let names = hit ? hit.names : reader ? first!.columns() : [];
    let stmt = hit ? hit.stmt : first!;
    let runSql = sql;
    let wrapped = false;
    if (reader && options.wrap) {
      runSql = byteWrapped(sql, names.length);
      try {
        if (!hit) stmt = prepare(runSql);
        wrapped = true;
      } catch {
        // Not a query a CTE can hold (DML with RETURNING): read as it is.
        runSql = sql;
      }
    }
    const { writes, quiet } = await options.check(runSql);
    if (!quiet) unsettled = true;
    const keep = reuse && quiet === true && wrapped ? { stmt, names, v: version } : null;
    if (!reader) {
      onColumns([]);
      try {
        const info = first!.run(...bindArgs(params));
        return { changes: info.changes, lastInsertRowid: info.lastInsertRowid };
      } catch (error) {
        throw wrap(error);
      }
    }
    if (options.namesFrom !== undefined) {
      try {
        names = prepare(options.namesFrom).columns();
      } catch { /* keep the rewritten statement's names */ }
    }
    onColumns(names.map((c) => c.name));
    const unwrap = wrapped;
    stmt.raw();
    let it: LibsqlIterator | undefined;
    let batches: Batches | undefined;
    try {
      it = stmt.iterate(...bindArgs(params));
      batches = new Batches(it);
      for (;;) {
        batches.refill();
        const next = it.next();
        if (next.done) {
          it = undefined;
          break;
        }
        batches.saw(next.value!);
        if (!onRow(unwrap ? unwrapRow(next.value!) : next.value!)) break;
      }
      if (keep && it === undefined) {
        ready.set(sql, keep);
        if (ready.size > READY_KEPT) ready.delete(ready.keys().next().value!);
      }
      return {};
    } catch (error) {
      it = undefined;
      throw wrap(error);
    } finally {
      if (it && batches) {
        // Stopped early: a statement left mid-way holds its read transaction (an outside writer
        // gets "database is locked", WAL readers stay on an old snapshot). A program that
        // writes runs to its end, so its changes commit; a read is interrupted, which ends it.
        if (!writes) (db as unknown as { interrupt(): void }).interrupt();
        try {
          for (;;) {
            batches.refill();
            if (it.next().done) break;
          }
        } catch { /* interrupted */ }
      }
      if (options.explain) resetExplain(stmt);
    }
  };
  return {
    remote: false,
    often(sql) {
      return Promise.resolve(oftenRow(sql));
    },
    all(sql, params = []) {
      const rows: unknown[][] = [];
      return run(
        sql,
        params,
        { explain: false, wrap: true, check: () => Promise.resolve({ writes: false }) },
        () => {},
        (r) => rows.push(r) > 0,
      ).then(() => rows);
    },
    program: (sql, probes) => programOf(sql, probes, explain),
    run,
    inTransaction: () => db.inTransaction,
    settingsMayHaveChanged: () => unsettled,
    settingsChecked() {
      unsettled = false;
    },
    close() {
      db.close();
    },
  };
}

/**
 * A remote libSQL server through @libsql/client. Read-only runs each statement inside a
 * `read` transaction, which the server itself enforces, and rolls it back. Virtual tables are
 * refused there: their pointers are not stable across the server's connections.
 */
export function openRemote(url: string, authToken: string | undefined, write: boolean): Db {
  const client = createClient({ url, authToken, intMode: "bigint" });
  const toArgs = (p: Params) => (p ?? []) as import("@libsql/client").InArgs;
  const all = async (sql: string, params: unknown[] = []) => {
    try {
      const rs = await client.execute({ sql, args: toArgs(params) });
      return rs.rows.map((r) => Array.from(r));
    } catch (error) {
      throw wrap(error);
    }
  };
  return {
    remote: true,
    all,
    async often(sql) {
      return (await all(sql))[0] ?? [];
    },
    async program(sql) {
      const rows = await all(`EXPLAIN ${sql}`);
      const ops = rows.map(toOp);
      return { ops, vtabs: new Map() };
    },
    async run(sql, params, options, onColumns, onRow) {
      await options.check(sql);
      try {
        const tx = await client.transaction(write ? "write" : "read");
        try {
          const rs = await tx.execute({ sql, args: toArgs(params) });
          onColumns(rs.columns);
          for (const r of rs.rows) if (!onRow(Array.from(r))) break;
          if (write) await tx.commit();
          return rs.columns.length === 0
            ? { changes: rs.rowsAffected, lastInsertRowid: rs.lastInsertRowid }
            : {};
        } finally {
          if (!tx.closed) tx.close();
        }
      } catch (error) {
        throw wrap(error);
      }
    },
    inTransaction: () => false,
    // A remote server's connections are its own: nothing here to check.
    settingsMayHaveChanged: () => false,
    settingsChecked() {},
    close() {
      client.close();
    },
  };
}
