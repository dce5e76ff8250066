export type Params = unknown[] | Record<string, unknown> | undefined;

/** How a statement runs. */
export interface RunOptions {
  /** Whether the statement may write (a --write server's POST); else it is held to reads. */
  write: boolean;
  /**
   * The most rows the caller will take (it stops the statement after them): a driver may then
   * read up to this many rows plus one in a single batch instead of one at a time. Without it
   * the rows are streamed (downloads).
   */
  limit?: number;
}

/** A database the worker runs statements on; local files and remote libSQL servers alike. */
export interface Db {
  /** Rows of an internal SELECT (held to the read-only rules like any other). */
  all(sql: string, params?: unknown[]): Promise<unknown[][]>;
  /**
   * Runs one statement. Rows are handed to `onRow` one at a time; returning false stops, and the
   * statement is ended at once. A driver that holds all the rows already (a batch read) may
   * hand them to `onRows` at once instead, when given: it takes them as onRow would, one at a
   * time and in order, stopping where onRow would. Resolves to the write counters, if any.
   */
  run(
    sql: string,
    params: Params,
    options: RunOptions,
    onColumns: (columns: string[]) => void,
    onRow: (row: unknown[]) => boolean,
    onRows?: (rows: unknown[][]) => void,
  ): Promise<{ changes?: number; lastInsertRowid?: unknown }>;
  /**
   * Optional: the reads of the request about to start may share one read transaction, until
   * its statement's rows are read or release() ends it (called on every path).
   */
  hold?(): void;
  release?(): void;
  /**
   * Optional: the request about to start must end within `ms` (its time limit, less its time in
   * the queue). A driver that can stop a statement without its process being killed (a remote
   * one: the client is asynchronous) stops it then, ends its transaction, and throws
   * TimeLimitError; the pool kills the worker only if that does not happen.
   */
  timeLimit?(ms: number, limitMs: number): void;
  /** Whether a transaction is open on the connection (it must never be between requests). */
  inTransaction(): boolean;
  close(): void;
}

/** Thrown for SQL errors and unopenable databases: its message is SQLite's. */
export class DbError extends Error {
  override name = "DbError";
  constructor(message: string, readonly code = "") {
    super(message);
  }
}

/** A statement the rules refuse: HTTP 403 with this message. */
export class RefusedError extends Error {
  override name = "RefusedError";
}

/** A statement past the request's time limit, stopped by the driver itself (HTTP 504). */
export class TimeLimitError extends Error {
  override name = "TimeLimitError";
  constructor(readonly limitMs: number) {
    super(`the query ran longer than the time limit (${limitMs} ms) and was stopped`);
  }
}

/** An answer past a cap the driver holds it to (HTTP 413): the message says which and why. */
export class TooLargeError extends Error {
  override name = "TooLargeError";
}
