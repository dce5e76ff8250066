import type { Db } from "./db.ts";

/**
 * The database's shape, read in one place for the API (/info, /tables, /tables/:t and its
 * indexes, in the worker) and the pages (through the pool, as any other read): each reader
 * takes the way to run an internal read, so both hold to the same rules and see the same answer.
 */
export type ReadRows = Db["all"];

export interface ColumnInfo {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
  pk: number;
  /** pragma_table_xinfo's: 0 plain, 1 hidden (virtual tables), 2 generated virtual, 3 stored. */
  hidden: number;
}

export interface TableSchema {
  name: string;
  kind: "table" | "view" | "virtual";
  sql: string | null;
  withoutRowid: boolean;
  strict: boolean;
  columns: ColumnInfo[];
}

export interface ForeignKey {
  /** The table that holds the key. */
  child: string;
  id: number;
  from: string;
  table: string;
  to: string | null;
  single: boolean;
  onUpdate: string;
  onDelete: string;
}

export interface IndexInfo {
  name: string;
  unique: boolean;
  origin: string;
  partial: boolean;
  sql: string | null;
  /** null for an expression. */
  columns: (string | null)[];
}

const flag = (v: unknown) => v !== null && v !== undefined && Number(v) !== 0;
const text = (v: unknown) => v === null ? null : String(v);

function kindOf(type: unknown, sql: unknown): TableSchema["kind"] {
  if (type === "view") return "view";
  return /^\s*CREATE\s+VIRTUAL\b/i.test(String(sql ?? "")) ? "virtual" : "table";
}

export async function info(all: ReadRows, label: string, write: boolean) {
  const one = async (sql: string) => (await all(sql))[0]?.[0];
  const counts = await all(
    "SELECT type, count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' GROUP BY type",
  );
  const count = (t: string) => Number(counts.find((r) => r[0] === t)?.[1] ?? 0);
  const pageSize = Number(await one("SELECT * FROM pragma_page_size"));
  const pageCount = Number(await one("SELECT * FROM pragma_page_count"));
  return {
    database: label,
    read_only: !write,
    sqlite_version: String(await one("SELECT sqlite_version()")),
    size_bytes: pageSize * pageCount,
    page_size: pageSize,
    journal_mode: String(await one("SELECT * FROM pragma_journal_mode")),
    tables: count("table"),
    views: count("view"),
    indexes: count("index"),
    triggers: count("trigger"),
  };
}

/** Every table and view but SQLite's own, by name, with its kind. */
export async function listTables(all: ReadRows): Promise<{ name: string; kind: string }[]> {
  const rows = await all(
    "SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table', 'view') " +
      "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
  );
  return rows.map((r) => ({ name: String(r[0]), kind: kindOf(r[1], r[2]) }));
}

/**
 * The table or view `name` with its columns, in one read: the one spelled exactly so, else the
 * one case-insensitive match (as SQLite itself resolves a name); null when there is none.
 */
export async function describeTable(all: ReadRows, name: string): Promise<TableSchema | null> {
  const rows = await all(
    `SELECT m.name, m.type, m.sql, l.wr, l.strict,
        c.name, c.type, c."notnull", c.dflt_value, c.pk, c.hidden
      FROM sqlite_schema m
      LEFT JOIN pragma_table_list(m.name) l ON l.schema = 'main'
      LEFT JOIN pragma_table_xinfo(m.name) c
      WHERE m.type IN ('table', 'view') AND m.name = ?1 COLLATE NOCASE
      ORDER BY m.name, c.cid`,
    [name],
  );
  const names = new Set(rows.map((r) => r[0]));
  const found = names.has(name) ? name : names.size === 1 ? rows[0][0] : undefined;
  const own = rows.filter((r) => r[0] === found);
  if (own.length === 0) return null;
  const [, type, sql, wr, strict] = own[0];
  return {
    name: String(found),
    kind: kindOf(type, sql),
    sql: text(sql),
    withoutRowid: flag(wr),
    strict: flag(strict),
    columns: own.filter((c) => c[5] !== null).map((c) => ({
      name: String(c[5]),
      type: String(c[6] ?? ""),
      notNull: flag(c[7]),
      default: text(c[8]),
      pk: Number(c[9] ?? 0),
      hidden: Number(c[10] ?? 0),
    })),
  };
}

export async function indexes(all: ReadRows, table: string): Promise<IndexInfo[]> {
  const rows = await all(
    `SELECT l.name, l."unique", l.origin, l.partial, m.sql,
        (SELECT json_group_array(i.name)
           FROM (SELECT name FROM pragma_index_info(l.name) ORDER BY seqno) i)
      FROM pragma_index_list(?1) l LEFT JOIN sqlite_schema m ON m.name = l.name
      ORDER BY l.name`,
    [table],
  );
  return rows.map((r) => ({
    name: String(r[0]),
    unique: flag(r[1]),
    origin: String(r[2]),
    partial: flag(r[3]),
    sql: text(r[4]),
    columns: JSON.parse(String(r[5])) as (string | null)[],
  }));
}

/** Foreign keys of `table` (`child`): column → the parent table and column. */
export async function foreignKeys(all: ReadRows, table: string): Promise<ForeignKey[]> {
  return keys(
    await all(
      `SELECT ?1, f.id, f."from", f."table",
          coalesce(f."to", (SELECT p.name FROM pragma_table_info(f."table") p WHERE p.pk = 1)),
          (SELECT count(*) FROM pragma_foreign_key_list(?1) g WHERE g.id = f.id),
          f.on_update, f.on_delete
        FROM pragma_foreign_key_list(?1) f ORDER BY f.id, f.seq`,
      [table],
    ),
  );
}

/** Foreign keys of other tables that point at `table` (`child` is their table). */
export async function referencedBy(all: ReadRows, table: string): Promise<ForeignKey[]> {
  return keys(
    await all(
      `SELECT m.name, f.id, f."from", ?1,
          coalesce(f."to", (SELECT p.name FROM pragma_table_info(?1) p WHERE p.pk = 1)),
          (SELECT count(*) FROM pragma_foreign_key_list(m.name) g WHERE g.id = f.id),
          f.on_update, f.on_delete
        FROM sqlite_schema m, pragma_foreign_key_list(m.name) f
        WHERE m.type = 'table' AND f."table" = ?1 COLLATE NOCASE ORDER BY m.name, f.id, f.seq`,
      [table],
    ),
  );
}

/** Rows of (child, id, from, table, to, columns in the key, on update, on delete). */
function keys(rows: unknown[][]): ForeignKey[] {
  return rows.map((r) => ({
    child: String(r[0]),
    id: Number(r[1]),
    from: String(r[2]),
    table: String(r[3]),
    to: text(r[4]),
    single: Number(r[5]) === 1,
    onUpdate: String(r[6]),
    onDelete: String(r[7]),
  }));
}

export async function triggers(all: ReadRows, table: string) {
  const rows = await all(
    "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 ORDER BY name",
    [table],
  );
  return rows.map((r) => ({ name: String(r[0]), sql: String(r[1]) }));
}

/** GET /api/tables/:table's answer. */
export function tableAnswer(t: TableSchema) {
  return {
    name: t.name,
    type: t.kind === "view" ? "view" : "table",
    without_rowid: t.withoutRowid,
    strict: t.strict,
    columns: t.columns.map((c) => ({
      name: c.name,
      type: c.type,
      nullable: !c.notNull,
      default: c.default,
      primary_key: c.pk,
      hidden: c.hidden !== 0,
    })),
  };
}

/** GET /api/tables/:table/indexes's answer. */
export function indexesAnswer(list: IndexInfo[]) {
  return list.map(({ sql: _, ...ix }) => ix);
}
