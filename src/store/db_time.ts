/**
 * Where a statement takes "now" from. Times that several processes compare (a lease's expiry,
 * a message's send time) are the database's, never a client's: two machines' clocks may differ
 * by a minute, the server's is one. With a libSQL server the statement reads the server's
 * clock itself (`julianday('now')`: SQLite's own, in every version the servers run; 'subsec'
 * needs 3.42); a local file's database runs in this process, so its clock is the process's
 * (injected, so tests drive it), bound in as a value.
 */
import type { SqlValue } from "./sql.ts";

/** The database's clock: null for the server's own, else a function giving ms since the epoch. */
export type DbClock = (() => number) | null;

/** The server's time in ms since the epoch, evaluated by SQLite (one value per statement). */
export const SERVER_NOW_MS = "CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)";

/**
 * A statement whose SQL says `NOW_MS` wherever it means the database's time (its own
 * arguments are ?1..?n): with the server's clock it becomes SERVER_NOW_MS (the same value
 * everywhere in the statement); with a bound clock one more numbered argument.
 */
export function timed(
  clock: DbClock,
  sql: string,
  args: SqlValue[] = [],
): { sql: string; args: SqlValue[] } {
  if (clock === null) return { sql: sql.replaceAll("NOW_MS", SERVER_NOW_MS), args };
  if (!sql.includes("NOW_MS")) return { sql, args };
  const at = `?${args.length + 1}`;
  return { sql: sql.replaceAll("NOW_MS", at), args: [...args, clock()] };
}
