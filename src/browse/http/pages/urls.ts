/**
 * Every view of the page is a URL: its state lives in the path and the query string, and
 * links and forms carry it. These are the URL forms, read and written in one place.
 *
 *   /                                     tables, views, saved queries
 *   /db/table/<name>?sort=&desc=1&fc=&fo=&fv=&size=&after=|before=|last=1|page=
 *   /db/table/<name>/download?format=csv|json|xml&<the view's sort and filters>
 *   /db/table/<name>/structure
 *   /db/table/<name>/row?key=<JSON array>
 *   /db/table/<name>/cell?key=<JSON array>&column=<name>[&raw=1]
 *   /db/query?sql=&params=&page=&size=[&plan=1]
 *   /db/query/download?sql=&params=&format=csv|json|xml
 */
import { HttpError } from "../http_error.ts";
import { type Filter, isOp, type PageStart, type Sort } from "./table_sql.ts";

export const BASE = "/db";
export const DEFAULT_SIZE = 100;
export const SIZES = [25, 50, 100, 200, 500, 1000];

export interface TableState {
  sort?: Sort;
  filters: Filter[];
  size: number;
  start: PageStart;
  /** The page's number as the links that led here counted it (key paging has no other). */
  page: number;
}

export function positiveInt(
  raw: string | undefined,
  name: string,
  fallback: number,
  max: number,
): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw new HttpError(400, `${name} must be a whole number from 1, got "${raw}"`);
  }
  return Math.min(Number(raw), max);
}

/** A table view's state from its query string (Hono's `queries()`). Keys stay text until the table is known. */
export function readTableState(
  query: Record<string, string[]>,
  maxRows: number,
): TableState & { afterText?: string; beforeText?: string } {
  const get = (name: string): string | undefined => query[name]?.[0];
  const sortColumn = get("sort");
  const sort = sortColumn ? { column: sortColumn, desc: get("desc") === "1" } : undefined;
  const cols = query.fc ?? [];
  const ops = query.fo ?? [];
  const values = query.fv ?? [];
  const filters: Filter[] = [];
  for (let i = 0; i < cols.length; i++) {
    const op = ops[i] ?? "eq";
    if (cols[i] === "") continue;
    if (!isOp(op)) throw new HttpError(400, `unknown filter operator "${op}"`);
    filters.push({ column: cols[i], op, value: values[i] ?? "" });
  }
  const size = positiveInt(get("size"), "size", Math.min(DEFAULT_SIZE, maxRows), maxRows);
  const page = positiveInt(get("page"), "page", 1, 1e9);
  const afterText = get("after");
  const beforeText = get("before");
  let start: PageStart = { kind: "first" };
  if (afterText !== undefined) start = { kind: "after", key: [] };
  else if (beforeText !== undefined) start = { kind: "before", key: [] };
  else if (get("last") === "1") start = { kind: "last" };
  else if (page > 1) start = { kind: "offset", page };
  return { sort, filters, size, start, page, afterText, beforeText };
}

export function tablePath(table: string, view = ""): string {
  return `${BASE}/table/${encodeURIComponent(table)}${view ? "/" + view : ""}`;
}

/** The query string of a table view's sort and filters (what a download or a page keeps). */
export function viewParams(state: { sort?: Sort; filters: readonly Filter[] }): URLSearchParams {
  const q = new URLSearchParams();
  if (state.sort) {
    q.set("sort", state.sort.column);
    if (state.sort.desc) q.set("desc", "1");
  }
  for (const f of state.filters) {
    q.append("fc", f.column);
    q.append("fo", f.op);
    q.append("fv", f.value);
  }
  return q;
}

function withQuery(path: string, q: URLSearchParams): string {
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export interface TableLink {
  sort?: Sort;
  filters: readonly Filter[];
  size: number;
  after?: string;
  before?: string;
  last?: boolean;
  page?: number;
}

export function tableUrl(table: string, link: TableLink, defaultSize: number): string {
  const q = viewParams(link);
  if (link.size !== defaultSize) q.set("size", String(link.size));
  if (link.after !== undefined) q.set("after", link.after);
  if (link.before !== undefined) q.set("before", link.before);
  if (link.last) q.set("last", "1");
  if (link.page !== undefined && link.page > 1) q.set("page", String(link.page));
  return withQuery(tablePath(table), q);
}

export function downloadUrl(
  table: string,
  state: { sort?: Sort; filters: readonly Filter[] },
  format: string,
): string {
  const q = viewParams(state);
  q.set("format", format);
  return withQuery(tablePath(table, "download"), q);
}

export function rowUrl(table: string, key: string): string {
  return withQuery(tablePath(table, "row"), new URLSearchParams({ key }));
}

export function cellUrl(table: string, key: string, column: string, raw = false): string {
  const q = new URLSearchParams({ key, column });
  if (raw) q.set("raw", "1");
  return withQuery(tablePath(table, "cell"), q);
}

/** A table view filtered to one column's value (a foreign key followed, a referrer listed). */
export function equalsUrl(table: string, column: string, value: unknown): string {
  return withQuery(
    tablePath(table),
    new URLSearchParams({ fc: column, fo: "eq", fv: valueText(value) }),
  );
}

/** A value as the text a filter binds (BLOBs are not filterable by text; they show base64). */
export function valueText(value: unknown): string {
  if (value === null) return "";
  if (typeof value === "object") return String((value as { encoded?: string }).encoded ?? "");
  return String(value);
}

export interface QueryLink {
  sql: string;
  params?: string;
  page?: number;
  size?: number;
  plan?: boolean;
}

export function queryUrl(link: QueryLink, defaultSize = DEFAULT_SIZE): string {
  const q = new URLSearchParams({ sql: link.sql });
  if (link.params) q.set("params", link.params);
  if (link.size !== undefined && link.size !== defaultSize) q.set("size", String(link.size));
  if (link.page !== undefined && link.page > 1) q.set("page", String(link.page));
  if (link.plan) q.set("plan", "1");
  return withQuery(`${BASE}/query`, q);
}

export function queryDownloadUrl(sql: string, params: string | undefined, format: string): string {
  const q = new URLSearchParams({ sql });
  if (params) q.set("params", params);
  q.set("format", format);
  return withQuery(`${BASE}/query/download`, q);
}
