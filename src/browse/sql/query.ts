import { EPONYMOUS_MODULES, SCHEMA_MODULES } from "./allow.ts";
import type { Db, Params } from "./db.ts";
import { csvHeader, csvLine } from "./encode_csv.ts";
import {
  JsonBody,
  jsonHead,
  jsonRowOf,
  jsonRowsOf,
  jsonTail,
  MAX_JSON_ANSWER_CHARS,
} from "./encode_json.ts";
import { XML_TAIL, xmlHead, xmlRow } from "./encode_xml.ts";
import { checkTokens, planPragma, type PragmaPlan, RefusedError } from "./guard.ts";
import { type ProgramCache, verdictOf } from "./programs.ts";
import type { WorkerHead, WorkerRequest } from "../pool/protocol.ts";
import {
  explainPrefix,
  listableBlobs,
  singleStatement,
  SqlTextError,
  type Token,
  tokenize,
} from "./sql_text.ts";
import type { UnlistableObjects } from "./unlistable.ts";
import { toApiValue } from "./values.ts";

/** Where an answer goes: a head, body text in chunks, an end. */
export interface Sink {
  head(head: WorkerHead): void;
  chunk(body: string | Uint8Array): void;
  end(end: { ok: boolean; rows: number; durationMs: number }): void;
}

export const JSON_TYPE = "application/json; charset=utf-8";
/** Body text is flushed to the sink in pieces of about this size, so memory stays bounded. */
const CHUNK = 64 * 1024;

type QueryRequest = Extract<WorkerRequest, { op: "query" | "explain" }>;

function decodeValue(v: unknown): unknown {
  if (v !== null && typeof v === "object") {
    const o = v as { $base64?: unknown; encoded?: unknown; $int?: unknown };
    if (o.$base64 === true) {
      return Uint8Array.from(atob(String(o.encoded)), (c) => c.charCodeAt(0));
    }
    // Integers beyond 2^53 arrive as decimal text; a JSON number would have rounded them.
    if (typeof o.$int === "string" && /^-?\d+$/.test(o.$int)) {
      const n = BigInt(o.$int);
      if (n > 9223372036854775807n || n < -9223372036854775808n) {
        throw new SqlTextError(`integer parameter out of the 64-bit range: ${o.$int}`);
      }
      return n;
    }
  }
  return v;
}

/** Params as the driver binds them: `{"$base64"}` become bytes, `{"$int"}` BigInts. */
export function decodeParams(params: unknown): Params {
  if (params === undefined || params === null) return undefined;
  if (Array.isArray(params)) return params.map(decodeValue);
  return Object.fromEntries(
    Object.entries(params as Record<string, unknown>).map(([k, v]) => [k, decodeValue(v)]),
  );
}

function quoteText(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

function quoteName(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

/**
 * The SQL a PRAGMA runs as: composed here from its checked parts, never the text as sent.
 * Pragmas whose output may hold the file's path or bytes from the file run as their
 * table-valued function (read through the UTF-8-safe path); the others as a PRAGMA statement,
 * which keeps their integer types.
 */
function pragmaSql(plan: PragmaPlan, label: string): { sql: string; modules: string[] } {
  if (plan.writeText) return { sql: plan.writeText, modules: [] };
  const schema = plan.schema === undefined ? "" : `${quoteName(plan.schema)}.`;
  if (plan.name === "database_list") {
    return {
      sql: `SELECT CAST(seq AS INTEGER) AS seq, name, CASE WHEN file = '' THEN '' ELSE ${
        quoteText(label)
      } END AS file FROM pragma_database_list`,
      modules: ["pragma_database_list"],
    };
  }
  if (plan.name === "integrity_check" || plan.name === "quick_check") {
    const where = [
      plan.arg === undefined ? "" : `arg = ${quoteText(String(plan.arg))}`,
      plan.schema === undefined ? "" : `schema = ${quoteText(plan.schema)}`,
    ].filter(Boolean);
    return {
      sql: `SELECT ${plan.name} FROM pragma_${plan.name}${
        where.length ? ` WHERE ${where.join(" AND ")}` : ""
      }`,
      modules: [`pragma_${plan.name}`],
    };
  }
  const arg = plan.arg === undefined
    ? ""
    : `(${typeof plan.arg === "number" ? String(plan.arg) : quoteText(plan.arg)})`;
  return { sql: `PRAGMA ${schema}${plan.name}${arg}`, modules: [] };
}

/** Probe SQL → module, for the allowed modules and the schema's allowed virtual tables. */
async function probes(db: Db, extra: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [module, sql] of EPONYMOUS_MODULES) out.set(sql, module);
  for (const module of extra) out.set(`SELECT * FROM ${module}`, module);
  for (const schema of ["main", "temp"]) {
    const rows = await db.all(
      `SELECT name, sql FROM ${schema}.sqlite_schema WHERE type = 'table' AND sql LIKE 'create virtual table%'`,
    );
    for (const [name, sql] of rows) {
      let tokens: Token[];
      try {
        tokens = tokenize(String(sql));
      } catch {
        continue;
      }
      const using = tokens.findIndex((t) => t.kind === "word" && t.value.toUpperCase() === "USING");
      const module = tokens[using + 1]?.value.toLowerCase() ?? "";
      if (using > 0 && SCHEMA_MODULES.has(module)) {
        out.set(`SELECT * FROM ${schema}.${quoteName(String(name))}`, module);
      }
    }
  }
  return out;
}

/**
 * A refusal of a virtual table, naming the modules the statement uses that are not allowed
 * (found by name: the program shows only a pointer).
 */
async function namedModules(db: Db, tokens: Token[], message: string): Promise<string> {
  try {
    const known = new Set(
      (await db.all("SELECT name FROM pragma_module_list")).map((r) => String(r[0]).toLowerCase()),
    );
    const names = new Set<string>();
    for (const t of tokens) {
      const name = t.value.toLowerCase();
      if ((t.kind === "word" || t.kind === "ident") && !EPONYMOUS_MODULES.has(name)) {
        if (known.has(name) || name.startsWith("pragma_")) names.add(name);
      }
    }
    if (names.size === 0) return message;
    return message.replace(
      "this virtual table or table-valued function is",
      `${[...names].join(", ")}: this virtual table or table-valued function is`,
    );
  } catch {
    return message;
  }
}

export interface QueryContext {
  db: Db;
  write: boolean;
  label: string;
  unlistable: UnlistableObjects;
  /** Listings kept by a read-only worker; without it every statement is listed anew. */
  programs?: ProgramCache;
}

/** Runs one query request: checks, runs and encodes it, answering through the sink. */
export async function runQuery(
  ctx: QueryContext,
  req: QueryRequest,
  sink: Sink,
  started: number,
): Promise<void> {
  const { db } = ctx;
  const { statement, tokens } = singleStatement(req.sql);
  const base = tokens[0].start;
  let { mode, inner } = explainPrefix(tokens);
  if (req.op === "explain") {
    if (mode === "explain") throw new SqlTextError("/explain takes a statement, not an EXPLAIN");
    mode = "plan";
  }
  if (inner >= tokens.length) throw new SqlTextError("EXPLAIN needs a statement to explain");
  checkTokens(tokens, inner);
  await ctx.unlistable.check(db, tokens);
  // The driver aborts the worker when named params meet a `?` that has no name.
  if (
    req.params !== null && typeof req.params === "object" && !Array.isArray(req.params) &&
    tokens.some((t) => t.kind === "param" && t.value === "?")
  ) {
    throw new SqlTextError("a query with ? parameters takes its params as a JSON array");
  }
  const write = ctx.write && !req.readOnly;
  const innerTokens = tokens.slice(inner);
  let innerSql: string;
  let original: string | undefined;
  let extraModules: string[] = [];
  const head = innerTokens[0];
  if (head.kind === "word" && head.value.toUpperCase() === "PRAGMA") {
    const plan = planPragma(tokens, inner, write);
    if (plan.writeText && mode !== "none") {
      throw new RefusedError("EXPLAIN of a PRAGMA that writes is not allowed");
    }
    ({ sql: innerSql, modules: extraModules } = pragmaSql(plan, ctx.label));
  } else {
    original = statement.slice(head.start - base);
    innerSql = listableBlobs(original, innerTokens, head.start);
  }
  const runText = mode === "none"
    ? innerSql
    : `${mode === "plan" ? "EXPLAIN QUERY PLAN" : "EXPLAIN"} ${innerSql}`;

  const check = async (runSql: string) => {
    // An EXPLAIN is checked as the statement it explains.
    const target = mode === "none" ? runSql : innerSql;
    const list = () => probes(db, extraModules);
    const cache = ctx.programs && !ctx.write && !db.remote ? ctx.programs : undefined;
    const { ops, vtabs } = cache
      ? await cache.program(db, target, list)
      : await db.program(target, list);
    // Listing a write does not write; what it would call and open is checked all the same.
    const rules = { write: write || mode !== "none", vtabs };
    const verdict = cache ? cache.check(ops, rules) : verdictOf(ops, rules);
    // A program that opens no virtual table cannot change a setting as it runs.
    return { writes: mode === "none" && verdict.writes, quiet: verdict.quiet };
  };

  const download = req.format !== "json";
  const cap = download ? Infinity : req.maxRows;
  let columns: string[] = [];
  let rows = 0;
  let truncated = false;
  let buf = "";
  let size = 0;
  const body = new JsonBody();
  let headSent = false;
  const flush = (force: boolean) => {
    if (buf.length >= CHUNK || (force && buf.length > 0)) {
      sink.chunk(buf);
      buf = "";
    }
  };
  const sendHead = () => {
    headSent = true;
    const ext = req.format === "json-download" ? "json" : req.format;
    sink.head({
      status: 200,
      contentType: req.format === "csv"
        ? "text/csv; charset=utf-8"
        : req.format === "xml"
        ? "application/xml; charset=utf-8"
        : JSON_TYPE,
      filename: download ? `result.${ext}` : undefined,
    });
  };
  const onColumns = (cols: string[]) => {
    columns = cols;
    if (!download) return;
    sendHead();
    if (req.format === "csv") buf += csvHeader(columns);
    else if (req.format === "xml") buf += xmlHead(columns);
    else buf += jsonHead(columns);
  };
  const onRow = (row: unknown[]): boolean => {
    if (rows >= cap) {
      truncated = true;
      return false;
    }
    if (!download) {
      const piece = jsonRowOf(row);
      // With the comma before every row but the first.
      const chars = piece.length + (rows === 0 ? 0 : 1);
      if (size + chars > MAX_JSON_ANSWER_CHARS) {
        truncated = true;
        return false;
      }
      size += chars;
      body.add(rows === 0 ? jsonHead(columns) + piece : "," + piece);
      rows++;
      return true;
    }
    rows++;
    if (req.format === "csv") buf += csvLine(row.map(toApiValue));
    else if (req.format === "xml") buf += xmlRow(columns, row.map(toApiValue));
    else buf += (rows === 1 ? "" : ",") + jsonRowOf(row);
    flush(false);
    return true;
  };
  /** A page read whole (node:sqlite): written in one piece when it is plain and fits. */
  const onRows = (batch: unknown[][]): void => {
    const take = Math.min(batch.length, cap - rows);
    const page = take === batch.length ? batch : batch.slice(0, take);
    const text = rows === 0 && take > 0 ? jsonRowsOf(page, MAX_JSON_ANSWER_CHARS) : null;
    if (text !== null) {
      size = text.length;
      body.add(jsonHead(columns) + text);
      rows = take;
      // A row past the cap is there to say the answer was cut, as onRow says it.
      if (batch.length > take) truncated = true;
      return;
    }
    for (const row of batch) if (!onRow(row)) break;
  };
  let result: { changes?: number; lastInsertRowid?: unknown };
  try {
    result = await db.run(
      runText,
      decodeParams(req.params),
      {
        explain: mode !== "none",
        wrap: mode === "none",
        check: async (runSql) => {
          try {
            return await check(runSql);
          } catch (error) {
            throw error instanceof RefusedError && /virtual table/.test(error.message)
              ? new RefusedError(await namedModules(db, tokens, error.message))
              : error;
          }
        },
        namesFrom: mode === "none" && original !== innerSql ? original : undefined,
        limit: download ? undefined : cap,
      },
      onColumns,
      onRow,
      download ? undefined : onRows,
    );
  } catch (error) {
    if (!headSent) throw error;
    // Mid-download: the status is gone, so end the body where it stands and say so.
    flush(true);
    sink.end({ ok: false, rows, durationMs: performance.now() - started });
    return;
  }
  const durationMs = performance.now() - started;
  const stats: Record<string, unknown> = {
    rows,
    duration_ms: Math.round(durationMs * 1000) / 1000,
  };
  if (result.changes !== undefined) stats.rows_affected = result.changes;
  if (result.lastInsertRowid !== undefined) {
    stats.last_insert_rowid = toApiValue(result.lastInsertRowid);
  }
  if (download) {
    if (!headSent) onColumns(columns);
    if (req.format === "xml") buf += XML_TAIL;
    else if (req.format === "json-download") buf += jsonTail(stats, false);
    flush(true);
  } else {
    sink.head({ status: 200, contentType: JSON_TYPE });
    if (rows === 0) body.add(jsonHead(columns));
    body.add(jsonTail(stats, truncated));
    // One piece: the worker sends it as one frame, which the server takes as the body itself.
    sink.chunk(body.bytes());
    body.release();
  }
  sink.end({ ok: true, rows, durationMs });
}
