/**
 * What a query may use, checked on the prepared program: every function call (by name as
 * EXPLAIN lists it) and every virtual table (by the module behind its pointer). Anything not
 * listed is refused, so a function or module added to a future build is refused until it is
 * reviewed here.
 */

const CORE_SCALAR = [
  "abs",
  "changes",
  "char",
  "coalesce",
  "concat",
  "concat_ws",
  "format",
  "glob",
  "hex",
  "ifnull",
  "iif",
  "instr",
  "last_insert_rowid",
  "last_rows_affected",
  "length",
  "like",
  "likelihood",
  "likely",
  "lower",
  "ltrim",
  "max",
  "min",
  "nullif",
  "octet_length",
  "printf",
  "quote",
  "random",
  "randomblob",
  "replace",
  "round",
  "rtrim",
  "sign",
  "soundex",
  "sqlite_compileoption_get",
  "sqlite_compileoption_used",
  "sqlite_source_id",
  "sqlite_version",
  "substr",
  "substring",
  "subtype",
  "total_changes",
  "trim",
  "typeof",
  "unhex",
  "unicode",
  "unlikely",
  "upper",
  "zeroblob",
  "->",
  "->>",
];

const AGGREGATE_AND_WINDOW = [
  "avg",
  "count",
  "group_concat",
  "string_agg",
  "sum",
  "total",
  "cume_dist",
  "dense_rank",
  "first_value",
  "lag",
  "last_value",
  "lead",
  "nth_value",
  "ntile",
  "percent_rank",
  "rank",
  "row_number",
  "median",
  "mode",
  "lower_quartile",
  "upper_quartile",
  "stdev",
  "variance",
];

const MATH = [
  "acos",
  "acosh",
  "asin",
  "asinh",
  "atan",
  "atan2",
  "atanh",
  "atn2",
  "ceil",
  "ceiling",
  "cos",
  "cosh",
  "cot",
  "coth",
  "degrees",
  "exp",
  "floor",
  "ln",
  "log",
  "log10",
  "log2",
  "mod",
  "pi",
  "pow",
  "power",
  "radians",
  "sin",
  "sinh",
  "sqrt",
  "square",
  "tan",
  "tanh",
  "trunc",
];

/** String helpers of the extension-functions set libsql ships. */
const EXTRA_TEXT = [
  "charindex",
  "difference",
  "leftstr",
  "rightstr",
  "padc",
  "padl",
  "padr",
  "proper",
  "replicate",
  "reverse",
  "strfilter",
  "regexp",
  "regexpi",
  "uuid",
  "uuid_str",
  "uuid_blob",
  "sha3",
];

const DATE_TIME = [
  "date",
  "time",
  "datetime",
  "julianday",
  "unixepoch",
  "strftime",
  "timediff",
  "current_date",
  "current_time",
  "current_timestamp",
];

const JSON_FUNCTIONS = [
  "json",
  "json_array",
  "json_array_length",
  "json_error_position",
  "json_extract",
  "json_insert",
  "json_object",
  "json_patch",
  "json_pretty",
  "json_quote",
  "json_remove",
  "json_replace",
  "json_set",
  "json_type",
  "json_valid",
  "json_group_array",
  "json_group_object",
  "jsonb",
  "jsonb_array",
  "jsonb_extract",
  "jsonb_insert",
  "jsonb_object",
  "jsonb_patch",
  "jsonb_remove",
  "jsonb_replace",
  "jsonb_set",
  "jsonb_group_array",
  "jsonb_group_object",
];

/** Auxiliary functions of full-text and spatial tables, and libsql's vector functions. */
const INDEX_FUNCTIONS = [
  "bm25",
  "highlight",
  "snippet",
  "match",
  "matchinfo",
  "offsets",
  "rtreecheck",
  "rtreedepth",
  "rtreenode",
  "geopoly_area",
  "geopoly_bbox",
  "geopoly_blob",
  "geopoly_ccw",
  "geopoly_contains_point",
  "geopoly_group_bbox",
  "geopoly_json",
  "geopoly_overlap",
  "geopoly_regular",
  "geopoly_svg",
  "geopoly_within",
  "geopoly_xform",
  "vector",
  "vector8",
  "vector16",
  "vector1bit",
  "vector32",
  "vector64",
  "vectorb16",
  "vector_distance_cos",
  "vector_distance_l2",
  "vector_extract",
  "libsql_vector_idx",
];

/** Functions SQLite itself calls inside ALTER TABLE programs (only reachable with --write). */
const ALTER_TABLE_INTERNALS = [
  "sqlite_rename_column",
  "sqlite_rename_table",
  "sqlite_rename_test",
  "sqlite_rename_quotefix",
  "sqlite_drop_column",
];

export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  ...CORE_SCALAR,
  ...AGGREGATE_AND_WINDOW,
  ...MATH,
  ...EXTRA_TEXT,
  ...DATE_TIME,
  ...JSON_FUNCTIONS,
  ...INDEX_FUNCTIONS,
  ...ALTER_TABLE_INTERNALS,
]);

/**
 * Names known to be dangerous get their own message (file access, code loading, SQL run from a
 * function, the fts3 tokenizer pointer trick, cipher settings, raw pages, ATTACH's functions).
 * Refusal does not depend on this list: anything not allowed is refused.
 */
export const DANGEROUS_NAMES: ReadonlySet<string> = new Set([
  "readfile",
  "writefile",
  "fsdir",
  "edit",
  "load_extension",
  "sha3_query",
  "fts3_tokenizer",
  "sqlite3mc_config",
  "sqlite3mc_config_table",
  "sqlite3mc_codec_data",
  "sqlite_crypt",
  "sqlite_dbpage",
  "sqlite_attach",
  "sqlite_detach",
  "sqlite_log",
  "sqlite_stmt",
  "carray",
]);

/**
 * Table-valued functions a query may name, each with a use that prepares without error: the
 * probe that finds the module's virtual-table pointer on the connection.
 */
export const EPONYMOUS_MODULES: ReadonlyMap<string, string> = new Map([
  ["json_each", "SELECT * FROM json_each('[]')"],
  ["json_tree", "SELECT * FROM json_tree('[]')"],
  ["generate_series", "SELECT * FROM generate_series(1, 1)"],
  ["dbstat", "SELECT * FROM dbstat"],
  ...[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "collation_list",
    "compile_options",
    "function_list",
    "module_list",
    "pragma_list",
  ].map((name): [string, string] => [`pragma_${name}`, `SELECT * FROM pragma_${name}`]),
]);

/** Modules a table in the schema may use (CREATE VIRTUAL TABLE ... USING module). */
export const SCHEMA_MODULES: ReadonlySet<string> = new Set([
  "fts3",
  "fts4",
  "fts4aux",
  "fts5",
  "fts5vocab",
  "rtree",
  "rtree_i32",
  "geopoly",
]);

/**
 * Pragmas that only read, by how they may be written. Each runs as its table-valued function
 * (`SELECT * FROM pragma_NAME(arg)`), never as a PRAGMA statement, because a PRAGMA acts while
 * it is prepared. `database_list` is answered with the label instead of the file's path.
 */
export const READ_PRAGMAS_NO_ARG: ReadonlySet<string> = new Set([
  "application_id",
  "auto_vacuum",
  "cache_size",
  "collation_list",
  "compile_options",
  "data_version",
  "database_list",
  "encoding",
  "foreign_keys",
  "freelist_count",
  "function_list",
  "journal_mode",
  "module_list",
  "page_count",
  "page_size",
  "pragma_list",
  "schema_version",
  "user_version",
]);

export const READ_PRAGMAS_WITH_ARG: ReadonlySet<string> = new Set([
  "foreign_key_check",
  "foreign_key_list",
  "index_info",
  "index_list",
  "index_xinfo",
  "integrity_check",
  "quick_check",
  "table_info",
  "table_list",
  "table_xinfo",
]);

/** Pragmas that write the database file's header, allowed in a --write POST. */
export const WRITE_PRAGMAS: ReadonlySet<string> = new Set(["user_version", "application_id"]);
