/**
 * What the store asks of a database connection: the small part of `@libsql/client` it uses
 * (execute, batch as one transaction, rows as arrays, SQLite's result code on errors). Two
 * backends give it: sqlite.ts (a local file through node:sqlite) and remote.ts (a libSQL
 * server through @libsql/client), so every table module runs the same SQL on both.
 */
export type SqlValue = null | number | bigint | string | Uint8Array;
export type Row = SqlValue[];

/** A statement with positional `?` arguments, or bare SQL. */
export type InStatement = string | { sql: string; args?: readonly SqlValue[] };

export interface ResultSet {
  rows: Row[];
  /** Rows changed by an INSERT, UPDATE or DELETE (0 for a query). */
  rowsAffected: number;
}

export interface SqlClient {
  /** One statement; for a server, one round trip. */
  execute(statement: InStatement): Promise<ResultSet>;
  /** The statements in one transaction, all or none; for a server, one round trip. */
  batch(statements: readonly InStatement[]): Promise<ResultSet[]>;
  close(): void;
}
