import type { Db } from "./db.ts";

/** Answers about the database's shape: /info, /tables, /tables/:t, /tables/:t/indexes. */

function bool(v: unknown): boolean {
  return v !== null && v !== undefined && Number(v) !== 0;
}

/** A database name as introspection found it: exact, or the one case-insensitive match. */
export async function resolveTable(
  db: Db,
  name: string,
): Promise<{ name: string; type: string } | null> {
  const rows = await db.all(
    "SELECT name, type FROM sqlite_schema WHERE type IN ('table','view') AND name = ?1 COLLATE NOCASE",
    [name],
  );
  const exact = rows.find((r) => r[0] === name) ?? (rows.length === 1 ? rows[0] : undefined);
  return exact ? { name: String(exact[0]), type: String(exact[1]) } : null;
}

export async function info(db: Db, label: string, write: boolean) {
  const one = async (sql: string) => (await db.all(sql))[0]?.[0];
  const counts = await db.all(
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

export async function tables(db: Db): Promise<string[]> {
  const rows = await db.all(
    "SELECT name FROM sqlite_schema WHERE type IN ('table','view') " +
      "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
  );
  return rows.map((r) => String(r[0]));
}

export async function table(db: Db, t: { name: string; type: string }) {
  const cols = await db.all(
    'SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?1)',
    [t.name],
  );
  const list = await db.all("SELECT wr, strict FROM pragma_table_list(?1)", [t.name]);
  return {
    name: t.name,
    type: t.type,
    without_rowid: bool(list[0]?.[0]),
    strict: bool(list[0]?.[1]),
    columns: cols.map((c) => ({
      name: String(c[0]),
      type: String(c[1] ?? ""),
      nullable: !bool(c[2]),
      default: c[3] === null ? null : String(c[3]),
      primary_key: Number(c[4] ?? 0),
      hidden: Number(c[5] ?? 0) !== 0,
    })),
  };
}

export async function indexes(db: Db, tableName: string) {
  const list = await db.all(
    'SELECT name, "unique", origin, partial FROM pragma_index_list(?1) ORDER BY name',
    [tableName],
  );
  const out = [];
  for (const ix of list) {
    const cols = await db.all(
      "SELECT name FROM pragma_index_info(?1) ORDER BY seqno",
      [String(ix[0])],
    );
    out.push({
      name: String(ix[0]),
      unique: bool(ix[1]),
      origin: String(ix[2]),
      partial: bool(ix[3]),
      columns: cols.map((c) => (c[0] === null ? null : String(c[0]))),
    });
  }
  return out;
}
