import type { Db, Params } from "./db.ts";
import { csvLine } from "./encode_csv.ts";
import {
  JsonBody,
  jsonHead,
  jsonRowOf,
  jsonRowsOf,
  jsonTail,
  MAX_JSON_ANSWER_CHARS,
} from "./encode_json.ts";
import { XML_TAIL, xmlHead, xmlRow } from "./encode_xml.ts";
import type { WorkerHead, WorkerRequest } from "../pool/protocol.ts";
import { explainPrefix, singleStatement, SqlTextError } from "./sql_text.ts";
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
      return Uint8Array.fromBase64(String(o.encoded));
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

/** Runs one query request and encodes it into the sink; `canWrite`: the server has --write. */
export async function runQuery(
  db: Db,
  canWrite: boolean,
  req: QueryRequest,
  sink: Sink,
  started: number,
): Promise<void> {
  // SQLite compiles only the first statement of a text: a second must not be dropped silently.
  const { statement, tokens } = singleStatement(req.sql);
  const { mode, inner } = explainPrefix(tokens);
  if (req.op === "explain" && mode === "explain") {
    throw new SqlTextError("/explain takes a statement, not an EXPLAIN");
  }
  if (inner >= tokens.length) throw new SqlTextError("EXPLAIN needs a statement to explain");
  if (
    req.params !== null && typeof req.params === "object" && !Array.isArray(req.params) &&
    tokens.some((t) => t.kind === "param" && t.value === "?")
  ) {
    throw new SqlTextError("a query with ? parameters takes its params as a JSON array");
  }
  const write = canWrite && !req.readOnly;
  const runText = req.op === "explain" ? `EXPLAIN QUERY PLAN ${statement}` : statement;

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
    if (req.format === "csv") buf += csvLine(columns);
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
      { write, limit: download ? undefined : cap },
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
