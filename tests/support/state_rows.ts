/** What a state database file holds, read as a test reads it: read-only, closed after. */
import { DatabaseSync, type SQLOutputValue } from "node:sqlite";

/** The rows of `sql` over the SQLite file `file`. */
export function stateRows(file: string, sql: string): Record<string, SQLOutputValue>[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}
