/**
 * The pages' reads: every one a request to the same worker pool as the API's, so the same
 * authorizer, read-only rules, time limit and queue bound hold. Values are bound parameters.
 */
import type { Answer } from "../../pool/pool.ts";
import { HttpError } from "../http_error.ts";
import type { WorkerRequest } from "../../pool/protocol.ts";
import { describeTable, type ReadRows, type TableSchema } from "../../sql/introspect.ts";
import {
  type Filter,
  quoteName,
  type Sort,
  type Statement,
  type TableKey,
  type TableShape,
} from "./table_sql.ts";

export type Run = (req: WorkerRequest, download: boolean) => Promise<Answer>;

export interface Rows {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
  stats?: { duration_ms?: number; rows_affected?: number; last_insert_rowid?: unknown };
}

/** An answer's JSON; an error answer becomes a HttpError with its message. */
async function answerJson<T>(answer: Answer): Promise<T> {
  // Integers stay exact as the API sends them: numbers when safe, decimal text beyond.
  const body = await new Response(answer.body as BodyInit).json() as T & { error?: string };
  if (answer.head.status >= 400) {
    throw new HttpError(answer.head.status, body.error ?? `status ${answer.head.status}`);
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

  /** An internal read through the pool, as introspect.ts's readers take it. */
  readonly all: ReadRows = async (sql, params) => (await this.rows({ sql, params })).rows;

  /** The table or view `name` with how the pages read it, or null: one read. */
  async shape(name: string): Promise<TableInfo | null> {
    const t = await describeTable(this.all, name);
    if (!t) return null;
    const shown = t.columns.filter((c) => c.hidden === 0 || c.hidden >= 2).map((c) => c.name);
    return { ...t, shape: { name: t.name, columns: shown, key: tableKey(t) } };
  }

  /** How many rows match, up to `limit` (the statement says how far it counts). */
  async count(statement: Statement): Promise<number> {
    const { rows } = await this.rows(statement);
    return Number(rows[0]?.[0] ?? 0);
  }
}

export interface TableInfo extends TableSchema {
  shape: TableShape;
}

/**
 * How a table's rows are told apart: the rowid (by a name no column shadows), else a WITHOUT
 * ROWID table's primary key; views and virtual tables have none, and page by OFFSET.
 */
export function tableKey({ kind, withoutRowid, columns }: TableSchema): TableKey {
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

/** A view's sort and filters, when the table has their columns; else the name refused. */
export function checkView<T extends { sort?: Sort; filters: readonly Filter[] }>(
  info: TableInfo,
  view: T,
): T {
  if (view.sort && !info.shape.columns.includes(view.sort.column)) {
    throw new HttpError(400, `no column ${quoteName(view.sort.column)} to sort by`);
  }
  for (const f of view.filters) {
    if (!info.shape.columns.includes(f.column)) {
      throw new HttpError(400, `no column ${quoteName(f.column)} in ${quoteName(info.name)}`);
    }
  }
  return view;
}
