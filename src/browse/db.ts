import Database from "libsql";
import { createClient } from "@libsql/client";

/** A database the worker runs statements on; local files and remote libSQL servers alike. */
export interface Db {
  /** Raw rows of a trusted internal statement (introspection, EXPLAIN). */
  all(sql: string, params?: unknown[]): Promise<unknown[][]>;
  /**
   * Runs a user statement. Rows are handed to `onRow` one at a time; returning false stops.
   * Resolves to the columns (empty for a statement that returns none) and write counters.
   */
  run(
    sql: string,
    params: unknown[] | Record<string, unknown> | undefined,
    onColumns: (columns: string[]) => void,
    onRow: (row: unknown[]) => boolean,
  ): Promise<{ changes?: number; lastInsertRowid?: unknown }>;
  close(): void;
}

/** Thrown for SQL errors and unopenable databases: its message is SQLite's. */
export class DbError extends Error {
  constructor(message: string, readonly code = "") {
    super(message);
    this.name = "DbError";
  }
}

/** Whether a DATABASE argument names a remote libSQL server rather than a local file. */
export function isRemote(database: string): boolean {
  return /^(libsql|https?|wss?):\/\//i.test(database);
}

/** The local file path of a DATABASE argument (a path or a `file:` URL). */
export function localPath(database: string): string {
  if (!/^file:/i.test(database)) return database;
  const rest = database.replace(/^file:(\/\/(localhost)?(?=\/))?/i, "").replace(/[?#].*$/, "");
  return decodeURIComponent(rest);
}

/** An SQLite URI for `path`: `mode=ro` makes the engine itself refuse every write to it. */
export function fileUri(path: string, write: boolean): string {
  const encoded = path.replace(
    /[%?#]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).padStart(2, "0"),
  );
  return `file:${encoded}?mode=${write ? "rw" : "ro"}`;
}

function wrap(error: unknown): DbError {
  const e = error as { message?: string; code?: string };
  return new DbError(e?.message ?? String(error), e?.code ?? "");
}

interface LibsqlStatement {
  reader: boolean;
  raw(on?: boolean): LibsqlStatement;
  columns(): { name: string }[];
  iterate(...params: unknown[]): IterableIterator<unknown[]>;
  all(...params: unknown[]): unknown[][];
  run(...params: unknown[]): { changes: number; lastInsertRowid: unknown };
}

function bindArgs(params: unknown[] | Record<string, unknown> | undefined): unknown[] {
  if (params === undefined) return [];
  return Array.isArray(params) ? [params] : [params];
}

/** A local file through the `libsql` driver (synchronous; the worker process isolates it). */
export function openLocal(path: string, write: boolean): Db {
  let db: Database.Database;
  try {
    db = new Database(fileUri(path, write));
    db.defaultSafeIntegers(true);
  } catch (error) {
    throw wrap(error);
  }
  const prepare = (sql: string): LibsqlStatement => {
    try {
      return db.prepare(sql) as unknown as LibsqlStatement;
    } catch (error) {
      throw wrap(error);
    }
  };
  return {
    all(sql, params = []) {
      const stmt = prepare(sql);
      try {
        return Promise.resolve(stmt.raw().all(params));
      } catch (error) {
        throw wrap(error);
      }
    },
    run(sql, params, onColumns, onRow) {
      const stmt = prepare(sql);
      try {
        if (!stmt.reader) {
          onColumns([]);
          const info = stmt.run(...bindArgs(params));
          return Promise.resolve({
            changes: info.changes,
            lastInsertRowid: info.lastInsertRowid,
          });
        }
        stmt.raw();
        onColumns(stmt.columns().map((c) => c.name));
        for (const row of stmt.iterate(...bindArgs(params))) {
          if (!onRow(row)) break;
        }
        return Promise.resolve({});
      } catch (error) {
        throw wrap(error);
      }
    },
    close() {
      db.close();
    },
  };
}

/**
 * A remote libSQL server through @libsql/client. Read-only runs each statement inside a
 * `read` transaction, which the server itself enforces, and rolls it back.
 */
export function openRemote(url: string, authToken: string | undefined, write: boolean): Db {
  const client = createClient({ url, authToken, intMode: "bigint" });
  const toArgs = (p: unknown[] | Record<string, unknown> | undefined) =>
    (p ?? []) as import("@libsql/client").InArgs;
  return {
    async all(sql, params = []) {
      try {
        const rs = await client.execute({ sql, args: toArgs(params) });
        return rs.rows.map((r) => Array.from(r));
      } catch (error) {
        throw wrap(error);
      }
    },
    async run(sql, params, onColumns, onRow) {
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
    close() {
      client.close();
    },
  };
}
