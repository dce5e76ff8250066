/**
 * The SQL behind a table view: filters, sort, key paging and the bounded count, built from the
 * view's state. Pure. Names are quoted identifiers checked against the table's own columns;
 * every value is a bound parameter, never spliced.
 */
import { HttpError } from "../http_error.ts";

export const OPERATORS = {
  eq: "=",
  ne: "≠",
  lt: "<",
  le: "≤",
  gt: ">",
  ge: "≥",
  contains: "contains",
  starts: "starts with",
  null: "is null",
  notnull: "is not null",
  in: "in",
} as const;
export type Op = keyof typeof OPERATORS;

export function isOp(value: string): value is Op {
  return Object.hasOwn(OPERATORS, value);
}

export interface Filter {
  column: string;
  op: Op;
  value: string;
}

/** How the rows of a table are told apart, for paging by key. */
export type TableKey =
  | { kind: "rowid"; name: string }
  | { kind: "pk"; columns: string[] }
  | { kind: "none"; why: string };

export interface TableShape {
  name: string;
  columns: string[];
  key: TableKey;
}

export interface Sort {
  column: string;
  desc: boolean;
}

/** Where a page starts: after a key, before a key, the last page, or an OFFSET page. */
export type PageStart =
  | { kind: "first" }
  | { kind: "after"; key: unknown[] }
  | { kind: "before"; key: unknown[] }
  | { kind: "last" }
  | { kind: "offset"; page: number };

export interface Statement {
  sql: string;
  params: unknown[];
}

/** The largest count the view waits for: beyond it the page says "more than". */
export const COUNT_LIMIT = 100_000;

export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The expressions that order a view and tell its rows apart: the sort column, then the key. */
export function keyParts(shape: TableShape, sort: Sort | undefined): string[] {
  const key = shape.key.kind === "rowid"
    ? [shape.key.name]
    : shape.key.kind === "pk"
    ? shape.key.columns.map(quoteName)
    : [];
  if (!sort) return key;
  const first = quoteName(sort.column);
  return key.length === 0 ? [first] : [first, ...key.filter((k) => k !== first)];
}

/** The WHERE terms of the filters, in order, and their values. */
export function filterTerms(filters: readonly Filter[]): { terms: string[]; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  for (const f of filters) {
    const c = quoteName(f.column);
    switch (f.op) {
      case "null":
        terms.push(`${c} IS NULL`);
        break;
      case "notnull":
        terms.push(`${c} IS NOT NULL`);
        break;
      case "contains":
        // instr, not LIKE: % and _ in the value are themselves, and case counts.
        terms.push(`instr(${c}, ?) > 0`);
        params.push(f.value);
        break;
      case "starts":
        terms.push(`instr(${c}, ?) = 1`);
        params.push(f.value);
        break;
      case "in": {
        const values = inValues(f.value);
        terms.push(`${c} IN (${values.map(() => "?").join(", ")})`);
        params.push(...values);
        break;
      }
      default: {
        const sign = { eq: "=", ne: "<>", lt: "<", le: "<=", gt: ">", ge: ">=" }[f.op];
        terms.push(`${c} ${sign} ?`);
        params.push(f.value);
      }
    }
  }
  return { terms, params };
}

/** The values of an `in` filter: a JSON array of strings and numbers, else comma-separated. */
export function inValues(text: string): unknown[] {
  const t = text.trim();
  if (t.startsWith("[")) {
    try {
      const list = JSON.parse(t);
      if (
        Array.isArray(list) &&
        list.every((v) => typeof v === "string" || typeof v === "number")
      ) return list;
    } catch { /* read as a comma-separated list */ }
  }
  return text.split(",").map((v) => v.trim());
}

/**
 * Rows strictly past `key` in the order of `parts` (all ascending, or all descending), with
 * NULL first in ascending order as SQLite sorts it: the keyset condition, one term per part.
 */
export function pastKey(
  parts: readonly string[],
  key: readonly unknown[],
  forward: boolean,
): Statement {
  const params: unknown[] = [];
  const greater = (p: string, v: unknown) => {
    if (v === null) return `${p} IS NOT NULL`;
    params.push(v);
    return `${p} > ?`;
  };
  const less = (p: string, v: unknown) => {
    if (v === null) return "0";
    params.push(v);
    return `(${p} < ? OR ${p} IS NULL)`;
  };
  const equal = (p: string, v: unknown) => {
    if (v === null) return `${p} IS NULL`;
    params.push(v);
    return `${p} = ?`;
  };
  const build = (i: number): string => {
    const step = forward ? greater(parts[i], key[i]) : less(parts[i], key[i]);
    if (i === parts.length - 1) return step;
    const same = equal(parts[i], key[i]);
    return `(${step} OR (${same} AND ${build(i + 1)}))`;
  };
  return { sql: build(0), params };
}

export interface PageQuery extends Statement {
  /** How many leading columns of each row are the key parts and their types (not shown). */
  keyColumns: number;
  /** Whether the rows come in reverse order (a page read backwards) and must be turned. */
  reversed: boolean;
  /** Whether the page is read with OFFSET (no key, or a jump). */
  offset: boolean;
}

/** The statement that reads one page: `size + 1` rows, so the page knows if more follow. */
export function pageQuery(
  shape: TableShape,
  filters: readonly Filter[],
  sort: Sort | undefined,
  start: PageStart,
  size: number,
): PageQuery {
  const parts = keyParts(shape, sort);
  const hasKey = shape.key.kind !== "none";
  const desc = sort?.desc ?? false;
  const { terms, params } = filterTerms(filters);
  const backwards = start.kind === "before" || start.kind === "last";
  if (start.kind === "after" || start.kind === "before") {
    if (!hasKey) throw new HttpError(400, "this view has no key to page by");
    if (start.key.length !== parts.length) throw new HttpError(400, "the page key does not fit");
    // Forward in the view's order is "greater" ascending and "less" descending.
    const past = pastKey(parts, start.key, (start.kind === "after") !== desc);
    terms.push(past.sql);
    params.push(...past.params);
  }
  const selectKey = hasKey ? parts.map((p) => `${p}, typeof(${p}), `).join("") : "";
  // Without a key, the parts are the sort column alone, if any.
  const order = parts.map((p) => desc !== backwards ? `${p} DESC` : p).join(", ");
  let sql = `SELECT ${selectKey}* FROM ${quoteName(shape.name)}`;
  if (terms.length > 0) sql += ` WHERE ${terms.join(" AND ")}`;
  if (order) sql += ` ORDER BY ${order}`;
  sql += " LIMIT ?";
  params.push(size + 1);
  if (start.kind === "offset") {
    sql += " OFFSET ?";
    params.push((start.page - 1) * size);
  }
  return {
    sql,
    params,
    keyColumns: hasKey ? parts.length * 2 : 0,
    reversed: backwards && hasKey,
    offset: start.kind === "offset" || (!hasKey && start.kind === "last"),
  };
}

/** All rows of the view, filtered and sorted, for a download. */
export function downloadQuery(
  shape: TableShape,
  filters: readonly Filter[],
  sort: Sort | undefined,
): Statement {
  const where = filterTerms(filters);
  const order = keyParts(shape, sort).map((p) => sort?.desc ? `${p} DESC` : p).join(", ");
  let sql = `SELECT * FROM ${quoteName(shape.name)}`;
  if (where.terms.length > 0) sql += ` WHERE ${where.terms.join(" AND ")}`;
  if (order) sql += ` ORDER BY ${order}`;
  return { sql, params: where.params };
}

/** The count of the view's rows, up to COUNT_LIMIT + 1 (then it is "more than"). */
export function countQuery(shape: TableShape, filters: readonly Filter[]): Statement {
  const where = filterTerms(filters);
  const whereSql = where.terms.length > 0 ? ` WHERE ${where.terms.join(" AND ")}` : "";
  return {
    sql: `SELECT count(*) FROM (SELECT 1 FROM ${quoteName(shape.name)}${whereSql} LIMIT ?)`,
    params: [...where.params, COUNT_LIMIT + 1],
  };
}

/** The statement that reads one row by its key. */
export function rowQuery(shape: TableShape, key: readonly unknown[]): Statement {
  const parts = keyParts(shape, undefined);
  if (parts.length === 0 || key.length !== parts.length) {
    throw new HttpError(400, "this row's key does not fit the table");
  }
  return {
    sql: `SELECT * FROM ${quoteName(shape.name)} WHERE ${
      parts.map((p) => `${p} = ?`).join(" AND ")
    }`,
    params: [...key],
  };
}

/** The key a page's row carries (its leading columns: value, typeof, per part), bindable. */
export function keyOf(row: readonly unknown[], keyColumns: number): unknown[] {
  const key: unknown[] = [];
  for (let i = 0; i < keyColumns; i += 2) key.push(bindable(row[i], row[i + 1]));
  return key;
}

/**
 * A value as the API gave it, made bindable as the same SQLite value: an integer beyond 2^53
 * comes as decimal text and goes back as `{"$int"}`; a BLOB comes and goes as `{"$base64"}`.
 */
export function bindable(value: unknown, type: unknown): unknown {
  if (type === "integer" && typeof value === "string") return { $int: value };
  return value;
}
