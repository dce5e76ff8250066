import type { Db } from "./db.ts";

/**
 * Connection settings that must be the same before and after every request. The PRAGMA checks
 * refuse every way to change them that we know of; this is the second line, in case one was
 * missed: a changed setting is put back before the next request, and a worker whose setting
 * cannot be put back is recycled.
 */

/** SQLite's heap limit in every worker: a query needing more fails cleanly with "out of memory". */
export const HARD_HEAP_LIMIT = 256 * 1024 * 1024;

const WATCHED = [
  "hard_heap_limit",
  "soft_heap_limit",
  "cache_size",
  "writable_schema",
  "foreign_keys",
  "query_only",
  "recursive_triggers",
  "trusted_schema",
  "defer_foreign_keys",
  "ignore_check_constraints",
  "legacy_alter_table",
  "reverse_unordered_selects",
  "cell_size_check",
  "automatic_index",
  "busy_timeout",
  "temp_store",
  "synchronous",
  "locking_mode",
  "journal_size_limit",
  "max_page_count",
  "cache_spill",
  "analysis_limit",
  "threads",
  "secure_delete",
  "count_changes",
  "read_uncommitted",
  "full_column_names",
  "short_column_names",
  "checkpoint_fullfsync",
  "fullfsync",
  "empty_result_callbacks",
];

const SETTINGS_SQL = "SELECT " + WATCHED.map((n) => `(SELECT * FROM pragma_${n})`).join(",");

/** Settings name → value, read in one statement. */
export async function readSettings(db: Db): Promise<Map<string, string>> {
  // Each of these table-valued functions has one column and one row.
  const row = await db.often(SETTINGS_SQL);
  return new Map(WATCHED.map((n, i) => [n, String(row[i])]));
}

/** Sets the worker's limits; returns the settings every later request is compared with. */
export async function baseline(db: Db): Promise<Map<string, string>> {
  if (db.remote) return new Map();
  await db.all(`PRAGMA hard_heap_limit = ${HARD_HEAP_LIMIT}`);
  const base = await readSettings(db);
  db.settingsChecked();
  return base;
}

/**
 * Compares the settings with the baseline and puts back what changed. Returns false when that
 * was not possible (the hard heap limit can only be lowered in SQL, never raised back): the
 * worker must then be replaced. Reading them costs more than a point query, so they are read
 * only when something that can change them was compiled or run since they last matched (a
 * query whose checked program opens no virtual table cannot: see Db.settingsMayHaveChanged).
 */
export async function restore(db: Db, base: Map<string, string>): Promise<boolean> {
  if (db.remote) return true;
  if (db.inTransaction()) return false;
  if (!db.settingsMayHaveChanged()) return true;
  const now = await readSettings(db);
  const changed = [...base].filter(([k, v]) => now.get(k) !== v);
  if (changed.length === 0) {
    db.settingsChecked();
    return true;
  }
  for (const [name, value] of changed) {
    if (name === "hard_heap_limit") return false;
    const v = /^-?\d+$/.test(value) ? value : `'${value.replaceAll("'", "''")}'`;
    try {
      await db.all(`PRAGMA ${name} = ${v}`);
    } catch { /* checked below */ }
  }
  const after = await readSettings(db);
  const back = [...base].every(([k, v]) => after.get(k) === v);
  if (back) db.settingsChecked();
  return back;
}
