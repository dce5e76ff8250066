import { constants } from "node:sqlite";

/** SQLite's authorizer codes, as node:sqlite exports them (its bundled types lack them). */
export const C = constants as unknown as Readonly<Record<string, number>>;

/**
 * What a statement may do, decided by SQLite's authorizer: SQLite calls it for every action of
 * every statement it prepares on the connection — the user's, those of the views and triggers
 * it expands, the SQL a virtual-table module runs on its own, and every re-prepare after a
 * schema change. Anything not allowed here is refused, so a function, PRAGMA or module added
 * to a future build is refused until it is reviewed.
 *
 * Expressions stored in the schema (CHECK, DEFAULT, generated columns, expression indexes) are
 * resolved when the schema is read, out of the authorizer's sight: they may use only functions
 * without side effects, since the connection has no others that are not direct-only (SQLite's
 * innocuous built-ins, the pure math functions; local.ts), and this build has no file functions.
 */

/** Names written one after another, as SQLite's docs list them. */
function words(text: string): string[] {
  return text.trim().split(/\s+/);
}

/** Scalar, aggregate and window functions of SQLite's core, JSON and full-text modules. */
const FUNCTIONS = words(`
  -> ->> abs avg bm25 char coalesce concat concat_ws count cume_dist current_date
  current_time current_timestamp date datetime dense_rank first_value format fts5_get_locale
  fts5_insttoken fts5_locale glob group_concat hex highlight if ifnull iif instr julianday lag
  last_value lead length like likelihood likely lower ltrim match matchinfo
  max min nth_value ntile nullif octet_length offsets percent_rank printf quote random
  randomblob rank replace round row_number rtrim sign snippet soundex sqlite_compileoption_get
  sqlite_compileoption_used sqlite_source_id sqlite_version strftime string_agg substr
  substring subtype sum time timediff total trim typeof unhex unicode unistr
  unistr_quote unixepoch unlikely upper zeroblob rtreecheck rtreedepth rtreenode json
  json_array json_array_insert json_array_length json_error_position json_extract
  json_group_array json_group_object json_insert json_object json_patch json_pretty json_quote
  json_remove json_replace json_set json_type json_valid jsonb jsonb_array jsonb_array_insert
  jsonb_extract jsonb_group_array jsonb_group_object jsonb_insert jsonb_object jsonb_patch
  jsonb_remove jsonb_replace jsonb_set acos acosh asin asinh atan atan2 atanh ceil ceiling cos
  cosh degrees exp floor ln log log10 log2 mod pi pow power radians sin sinh sqrt tan tanh
  trunc
`);

/** Functions SQLite calls inside its own ALTER TABLE programs (reachable only with --write). */
const ALTER_TABLE_FUNCTIONS = words(`
  sqlite_rename_column sqlite_rename_table sqlite_rename_test sqlite_rename_quotefix
  sqlite_drop_column
`);

const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([...FUNCTIONS, ...ALTER_TABLE_FUNCTIONS]);

/**
 * The connection's counters: they tell one request what the last one did, whoever sent it
 * (another client's insert id and row counts). A write's own counts come with its answer.
 */
const COUNTER_FUNCTIONS: ReadonlySet<string> = new Set(words(`
  changes last_insert_rowid total_changes
`));

/**
 * PRAGMAs that only read, allowed without a value. Not `database_list` (it shows the server's
 * path) nor anything that acts (optimize, wal_checkpoint, shrink_memory...).
 */
const READ_PRAGMAS: ReadonlySet<string> = new Set(words(`
  application_id auto_vacuum cache_size collation_list compile_options data_version encoding
  foreign_keys freelist_count function_list journal_mode module_list page_count page_size
  pragma_list schema_version user_version
`));

/** PRAGMAs whose value only says what to read (a table, an index, a count of errors). */
const READ_PRAGMAS_WITH_ARG: ReadonlySet<string> = new Set(words(`
  foreign_key_check foreign_key_list index_info index_list index_xinfo integrity_check
  quick_check table_info table_list table_xinfo
`));

/** PRAGMAs that write the database file's header, allowed with --write. */
const WRITE_PRAGMAS: ReadonlySet<string> = new Set(["user_version", "application_id"]);

/** Modules a --write client may create virtual tables with: SQLite's own index modules. */
const MODULES: ReadonlySet<string> = new Set(words(`
  fts3 fts4 fts4aux fts5 fts5vocab rtree rtree_i32 fts3tokenize dbstat json_each json_tree
`));

/** Modules this build may have, reviewed: a worker refuses to start on a build with others. */
export const REVIEWED_MODULES: ReadonlySet<string> = MODULES;

const WRITE_ACTIONS: ReadonlySet<number> = new Set([
  C.SQLITE_INSERT,
  C.SQLITE_UPDATE,
  C.SQLITE_DELETE,
  C.SQLITE_CREATE_INDEX,
  C.SQLITE_CREATE_TABLE,
  C.SQLITE_CREATE_TRIGGER,
  C.SQLITE_CREATE_VIEW,
  C.SQLITE_DROP_INDEX,
  C.SQLITE_DROP_TABLE,
  C.SQLITE_DROP_TRIGGER,
  C.SQLITE_DROP_VIEW,
  C.SQLITE_ALTER_TABLE,
  C.SQLITE_REINDEX,
  C.SQLITE_ANALYZE,
  C.SQLITE_DROP_VTABLE,
]);

const TEMP_ACTIONS: ReadonlySet<number> = new Set([
  C.SQLITE_CREATE_TEMP_INDEX,
  C.SQLITE_CREATE_TEMP_TABLE,
  C.SQLITE_CREATE_TEMP_TRIGGER,
  C.SQLITE_CREATE_TEMP_VIEW,
  C.SQLITE_DROP_TEMP_INDEX,
  C.SQLITE_DROP_TEMP_TABLE,
  C.SQLITE_DROP_TEMP_TRIGGER,
  C.SQLITE_DROP_TEMP_VIEW,
]);

export const WRITE_REFUSED =
  "read-only: this statement would write (writes need `courier browse --write` and a POST)";

/** Why a PRAGMA `name` with `value` (null: none) is refused, or null when it may run. */
export function pragmaRefusal(name: string, value: string | null, write: boolean): string | null {
  if (READ_PRAGMAS_WITH_ARG.has(name)) return null;
  if (value === null && READ_PRAGMAS.has(name)) return null;
  if (value !== null && WRITE_PRAGMAS.has(name)) return write ? null : WRITE_REFUSED;
  return value === null
    ? `PRAGMA ${name} is not allowed`
    : `PRAGMA ${name} with a value is not allowed (it changes the connection or the file)`;
}

const ROW_WRITES: ReadonlySet<number> = new Set([
  C.SQLITE_INSERT,
  C.SQLITE_UPDATE,
  C.SQLITE_DELETE,
]);

/**
 * The authorizer's verdict on one action: null to allow it, else why it is refused.
 * `a` and `b` are the action's two arguments as SQLite passes them (see sqlite3_set_authorizer),
 * `schema` the database it acts on; `table` what the table `a` is, when that matters: a virtual
 * table's shadow table, or a PRAGMA's table-valued form (`pragma_table_info`).
 */
export function refusal(
  action: number,
  a: string | null,
  b: string | null,
  schema: string | null,
  write: boolean,
  table: { shadow?: boolean; pragma?: boolean } = {},
): string | null {
  const shadow = table.shadow === true;
  // A PRAGMA read as a table is judged as the PRAGMA, by its name, when it is prepared (SQLite
  // asks about its PRAGMA again only when it runs, which a remote statement does elsewhere).
  if (action === C.SQLITE_READ && table.pragma === true && a !== null) {
    return pragmaRefusal(a.slice("pragma_".length).toLowerCase(), null, write);
  }
  // A virtual table's own statements on its shadow tables, which R-tree prepares (writes
  // included) when it connects, also to read: allowed, since defensive mode keeps ordinary SQL
  // from writing a shadow table and a read-only connection cannot write at all. Writing the
  // virtual table itself is the write the rules judge.
  if (shadow && schema === "main" && ROW_WRITES.has(action)) return null;
  // ALTER TABLE's own rewrite of the TEMP schema's text (SQLite refuses that UPDATE to SQL).
  if (
    action === C.SQLITE_UPDATE && schema === "temp" && a === "sqlite_temp_master" && write
  ) return null;
  switch (action) {
    case C.SQLITE_SELECT:
    case C.SQLITE_READ:
    case C.SQLITE_RECURSIVE:
      return null;
    case C.SQLITE_FUNCTION: {
      const name = (b ?? "").toLowerCase();
      if (COUNTER_FUNCTIONS.has(name)) {
        return `function ${name} is not allowed: it would show what an earlier request did ` +
          "(a write's answer carries its rows_affected and last_insert_rowid)";
      }
      return ALLOWED_FUNCTIONS.has(name) ? null : `function ${name} is not allowed`;
    }
    case C.SQLITE_PRAGMA:
      return pragmaRefusal((a ?? "").toLowerCase(), b, write);
    case C.SQLITE_ATTACH:
    case C.SQLITE_DETACH:
      // VACUUM and VACUUM INTO attach their target: refused by the same rule.
      return "ATTACH, DETACH and VACUUM are not allowed: the server serves one database file";
    case C.SQLITE_TRANSACTION:
    case C.SQLITE_SAVEPOINT:
      return "transaction control is not allowed: each request runs on its own";
    case C.SQLITE_CREATE_VTABLE: {
      if (!write) return WRITE_REFUSED;
      const module = (b ?? "").toLowerCase();
      return MODULES.has(module) ? null : `virtual table module ${module} is not allowed`;
    }
  }
  if (TEMP_ACTIONS.has(action) || (schema === "temp" && WRITE_ACTIONS.has(action))) {
    return "TEMP objects are not allowed: nothing a request makes outlives it";
  }
  if (WRITE_ACTIONS.has(action)) return write ? null : WRITE_REFUSED;
  return "this statement is not allowed";
}
