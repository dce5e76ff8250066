/**
 * The pages' reads: every one a request to the same worker pool as the API's, so the same
 * authorizer, read-only rules, time limit and queue bound hold. Values are bound parameters.
 */
import type { Answer } from "../../pool/pool.ts";
import type { WorkerRequest } from "../../pool/protocol.ts";
import {
  type Filter,
  quoteName,
  type Statement,
  type TableKey,
  type TableShape,
} from "./table_sql.ts";

export type Run = (req: WorkerRequest, download: boolean) => Promise<Answer>;

/** A statement the database refused or that failed: shown on the page, with its status. */
export class ReadError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = "ReadError";
  }
}

export interface Rows {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
  stats?: { duration_ms?: number; rows_affected?: number; last_insert_rowid?: unknown };
}

async function bodyText(answer: Answer): Promise<string> {
  if (answer.body instanceof Uint8Array) return new TextDecoder().decode(answer.body);
  return await new Response(answer.body).text();
}

/** An answer's JSON; an error answer becomes a ReadError with its message. */
export async function answerJson<T>(answer: Answer): Promise<T> {
  const text = await bodyText(answer);
  // Integers stay exact as the API sends them: numbers when safe, decimal text beyond.
  const body = JSON.parse(text) as T & { error?: string };
  if (answer.head.status >= 400) {
    throw new ReadError(answer.head.status, body.error ?? `status ${answer.head.status}`);
  }
  return body;
}

export class Reader {
  constructor(
    private run: Run,
    private maxRows: number,
  ) {}

  async rows(
    statement: Statement | { sql: string; params?: unknown },
    options: { maxRows?: number; readOnly?: boolean; op?: "query" | "explain" } = {},
  ): Promise<Rows> {
    const answer = await this.run({
      op: options.op ?? "query",
      sql: statement.sql,
      params: statement.params,
      format: "json",
      maxRows: Math.min(options.maxRows ?? this.maxRows, this.maxRows + 1),
      readOnly: options.readOnly ?? true,
    }, false);
    return await answerJson<Rows>(answer);
  }

  async json<T>(req: WorkerRequest): Promise<T> {
    return await answerJson<T>(await this.run(req, false));
  }

  /** The table or view `name`, exactly as the schema spells it, or null: one read. */
  async shape(name: string): Promise<TableInfo | null> {
    const found = await this.rows({
      sql: `SELECT m.type, m.sql, l.wr, l.strict,
          c.name, c.type, c."notnull", c.dflt_value, c.pk, c.hidden
        FROM sqlite_schema m
        LEFT JOIN pragma_table_list(m.name) l ON l.schema = 'main'
        LEFT JOIN pragma_table_xinfo(m.name) c
        WHERE m.type IN ('table', 'view') AND m.name = ?
        ORDER BY c.cid`,
      params: [name],
    });
    if (found.rows.length === 0) return null;
    const [type, sql, wr, strict] = found.rows[0] as [string, string | null, unknown, unknown];
    const columns: ColumnInfo[] = found.rows.filter((c) => c[4] !== null).map((c) => ({
      name: String(c[4]),
      type: String(c[5] ?? ""),
      notNull: Number(c[6]) !== 0,
      default: c[7] === null ? null : String(c[7]),
      pk: Number(c[8] ?? 0),
      hidden: Number(c[9] ?? 0),
    }));
    const virtual = type === "table" && /^\s*CREATE\s+VIRTUAL\b/i.test(sql ?? "");
    const withoutRowid = Number(wr ?? 0) !== 0;
    const kind: TableInfo["kind"] = type === "view" ? "view" : virtual ? "virtual" : "table";
    const shown = columns.filter((c) => c.hidden === 0 || c.hidden >= 2).map((c) => c.name);
    return {
      name,
      kind,
      sql,
      withoutRowid,
      strict: Number(strict ?? 0) !== 0,
      columns,
      shape: { name, columns: shown, key: tableKey(kind, withoutRowid, columns) },
    };
  }

  /** Foreign keys of `table`: column → the parent table and column. */
  async foreignKeys(table: string): Promise<ForeignKey[]> {
    return await this.#foreignKeys(
      `SELECT ?1, f.id, f."from", f."table",
          coalesce(f."to", (SELECT p.name FROM pragma_table_info(f."table") p WHERE p.pk = 1)),
          (SELECT count(*) FROM pragma_foreign_key_list(?1) g WHERE g.id = f.id),
          f.on_update, f.on_delete
        FROM pragma_foreign_key_list(?1) f ORDER BY f.id, f.seq`,
      table,
    );
  }

  /** Foreign keys of other tables that point at `table` (`child` is their table). */
  async referencedBy(table: string): Promise<ForeignKey[]> {
    return await this.#foreignKeys(
      `SELECT m.name, f.id, f."from", ?1,
          coalesce(f."to", (SELECT p.name FROM pragma_table_info(?1) p WHERE p.pk = 1)),
          (SELECT count(*) FROM pragma_foreign_key_list(m.name) g WHERE g.id = f.id),
          f.on_update, f.on_delete
        FROM sqlite_schema m, pragma_foreign_key_list(m.name) f
        WHERE m.type = 'table' AND f."table" = ?1 COLLATE NOCASE ORDER BY m.name, f.id, f.seq`,
      table,
    );
  }

  /** Rows of (child, id, from, table, to, columns in the key, on update, on delete). */
  async #foreignKeys(sql: string, table: string): Promise<ForeignKey[]> {
    const fks = await this.rows({ sql, params: [table] });
    return fks.rows.map((r) => ({
      child: String(r[0]),
      id: Number(r[1]),
      from: String(r[2]),
      table: String(r[3]),
      to: r[4] === null ? null : String(r[4]),
      single: Number(r[5]) === 1,
      onUpdate: String(r[6]),
      onDelete: String(r[7]),
    }));
  }

  async indexes(table: string): Promise<IndexInfo[]> {
    const list = await this.rows({
      sql: `SELECT l.name, l."unique", l.origin, l.partial, m.sql,
          (SELECT json_group_array(coalesce(i.name, '<expression>'))
             FROM (SELECT name FROM pragma_index_info(l.name) ORDER BY seqno) i)
        FROM pragma_index_list(?) l LEFT JOIN sqlite_schema m ON m.name = l.name
        ORDER BY l.name`,
      params: [table],
    });
    return list.rows.map((r) => ({
      name: String(r[0]),
      unique: Number(r[1]) !== 0,
      origin: String(r[2]),
      partial: Number(r[3]) !== 0,
      sql: r[4] === null ? null : String(r[4]),
      columns: JSON.parse(String(r[5])) as string[],
    }));
  }

  async triggers(table: string): Promise<{ name: string; sql: string }[]> {
    const list = await this.rows({
      sql: "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? " +
        "ORDER BY name",
      params: [table],
    });
    return list.rows.map((r) => ({ name: String(r[0]), sql: String(r[1]) }));
  }

  /** Every table and view with its kind, for the list. */
  async list(): Promise<{ name: string; kind: TableInfo["kind"] }[]> {
    const list = await this.rows({
      sql: "SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table', 'view') " +
        "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    });
    return list.rows.map((r) => ({
      name: String(r[0]),
      kind: r[1] === "view"
        ? "view"
        : /^\s*CREATE\s+VIRTUAL\b/i.test(String(r[2] ?? ""))
        ? "virtual"
        : "table",
    }));
  }

  /** How many rows match, up to `limit` (the statement says how far it counts). */
  async count(statement: Statement): Promise<number> {
    const { rows } = await this.rows(statement);
    return Number(rows[0]?.[0] ?? 0);
  }
}

export interface ColumnInfo {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
  pk: number;
  /** pragma_table_xinfo's: 0 plain, 1 hidden (virtual tables), 2 generated virtual, 3 stored. */
  hidden: number;
}

export interface TableInfo {
  name: string;
  kind: "table" | "view" | "virtual";
  sql: string | null;
  withoutRowid: boolean;
  strict: boolean;
  columns: ColumnInfo[];
  shape: TableShape;
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
  columns: string[];
}

/**
 * How a table's rows are told apart: the rowid (by a name no column shadows), else a WITHOUT
 * ROWID table's primary key; views and virtual tables have none, and page by OFFSET.
 */
export function tableKey(
  kind: TableInfo["kind"],
  withoutRowid: boolean,
  columns: readonly ColumnInfo[],
): TableKey {
  if (kind === "view") return { kind: "none", why: "a view has no key" };
  if (kind === "virtual") return { kind: "none", why: "a virtual table may have no usable key" };
  if (withoutRowid) {
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    return pk.length > 0 ? { kind: "pk", columns: pk } : { kind: "none", why: "no primary key" };
  }
  const names = new Set(columns.map((c) => c.name.toLowerCase()));
  const free = ["rowid", "_rowid_", "oid"].find((n) => !names.has(n));
  return free
    ? { kind: "rowid", name: free }
    : { kind: "none", why: "columns named rowid, _rowid_ and oid hide the rowid" };
}

/** Filters whose column the table has; an unknown column is refused with its name. */
export function checkFilters(info: TableInfo, filters: readonly Filter[]): void {
  for (const f of filters) {
    if (!info.shape.columns.includes(f.column)) {
      throw new ReadError(400, `no column ${quoteName(f.column)} in ${quoteName(info.name)}`);
    }
  }
}
