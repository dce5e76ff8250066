import type { Op } from "./guard.ts";

export type Params = unknown[] | Record<string, unknown> | undefined;

/** How a statement runs: whether it writes, whether it is an EXPLAIN listing. */
export interface RunOptions {
  /** An EXPLAIN statement stays active after its last row until it is reset. */
  explain: boolean;
  /** Read text through bytes (U+FFFD for what is not UTF-8); for statements a CTE can hold. */
  wrap: boolean;
  /**
   * Checks the exact SQL about to run (the statement, or the wrapper around it) before it runs;
   * throws to refuse. Resolves to whether its program writes, and `quiet` when its program was
   * listed and opens no virtual table (without it the settings are checked after the request).
   */
  check(runSql: string): Promise<{ writes: boolean; quiet?: boolean }>;
  /** Column names are taken from this SQL when set (the statement before blob literals were rewritten). */
  namesFrom?: string;
  /**
   * The most rows the caller will take (it stops the statement after them): a driver may then
   * read up to this many rows plus one in a single batch instead of one at a time.
   */
  limit?: number;
}

/** A database the worker runs statements on; local files and remote libSQL servers alike. */
export interface Db {
  readonly remote: boolean;
  /** Rows of a trusted internal SELECT, text decoded safely. */
  all(sql: string, params?: unknown[]): Promise<unknown[][]>;
  /**
   * The first row of a trusted internal SELECT run after every request, prepared once and kept.
   * Its text must be ASCII: it is read as it is, without the UTF-8-safe wrapper.
   */
  often(sql: string): Promise<unknown[]>;
  /**
   * The program of `sql` as EXPLAIN lists it, and, if it opens virtual tables, the pointers of
   * the allowed ones at this moment (probe SQL → module name).
   */
  program(
    sql: string,
    probes: () => Promise<Map<string, string>>,
  ): Promise<{ ops: Op[]; vtabs: Map<string, string> }>;
  /**
   * Runs a statement. Rows are handed to `onRow` one at a time; returning false stops, and the
   * statement is ended at once. A driver that holds all the rows already (a batch read) may
   * hand them to `onRows` at once instead, when given: it takes them as onRow would, one at a
   * time and in order, stopping where onRow would. Resolves to the columns and write counters.
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
   * its statement's rows are read or release() ends it (called before the request's settings
   * are checked, on every path). Only internal reads and queries run in it.
   */
  hold?(): void;
  release?(): void;
  /** Whether a transaction is open on the connection (it must never be between requests). */
  inTransaction(): boolean;
  /**
   * False only while nothing that can change a connection setting has been compiled or run
   * since settingsChecked(): no text other than a query (a PRAGMA changes flags as it is
   * compiled) and no program that opens a virtual table (a pragma table-valued function runs
   * its PRAGMA) or whose check did not say it was quiet. Always true until the first check.
   */
  settingsMayHaveChanged(): boolean;
  /** The settings were read and found as at the baseline. */
  settingsChecked(): void;
  close(): void;
}

/** Thrown for SQL errors and unopenable databases: its message is SQLite's. */
export class DbError extends Error {
  /**
   * @param fallback nothing of the request was answered and this engine cannot answer it (it
   * cannot prepare the statement, or not read it within its limits): another may (see
   * Executor's fallback).
   */
  constructor(message: string, readonly code = "", readonly fallback = false) {
    super(message);
    this.name = "DbError";
  }
}

export function wrap(error: unknown): DbError {
  const e = error as { message?: string; code?: string };
  return new DbError(e?.message ?? String(error), e?.code ?? "");
}

/** One row of an `EXPLAIN` listing (addr, opcode, p1, p2, p3, p4, …) as the checks read it. */
export function toOp(r: unknown[]): Op {
  return {
    opcode: String(r[1]),
    p1: Number(r[2]),
    p2: Number(r[3]),
    p3: Number(r[4]),
    p4: r[5] === null ? null : String(r[5]),
  };
}

/**
 * A statement's program as EXPLAIN lists it, and, if it opens virtual tables, the pointers of
 * the allowed ones at this moment (probe SQL → module name). `explain` lists a text's program;
 * the statement it returns stays referenced until the pointers are compared: a prepared program
 * holds its virtual tables, so no other live table can share an address meanwhile.
 */
export function programOf(
  sql: string,
  probes: () => Promise<Map<string, string>>,
  explain: (sql: string) => { stmt: unknown; rows: unknown[][] },
): Promise<{ ops: Op[]; vtabs: Map<string, string> }> {
  const first = explain(sql);
  const held: unknown[] = [first.stmt];
  const ops = first.rows.map(toOp);
  const vtabs = new Map<string, string>();
  if (!ops.some((op) => op.p4?.startsWith("vtab:"))) return Promise.resolve({ ops, vtabs });
  return probes().then((list) => {
    for (const [probe, module] of list) {
      try {
        const p = explain(probe);
        held.push(p.stmt);
        for (const r of p.rows) {
          const p4 = r[5] === null ? "" : String(r[5]);
          if (p4.startsWith("vtab:")) vtabs.set(p4, module);
        }
      } catch { /* a module this build lacks */ }
    }
    held.length = 0;
    return { ops, vtabs };
  });
}
