import { type Db, DbError } from "./db.ts";
import { checkProgram, checkTokens, type Op, RefusedError, taintedObjects } from "./guard.ts";
import type { WorkerEnd, WorkerHead, WorkerRequest } from "./protocol.ts";
import { singleStatement, SqlTextError, tokenize } from "./sql_text.ts";
import {
  type ApiValue,
  csvHeader,
  csvLine,
  toApiValue,
  XML_TAIL,
  xmlHead,
  xmlRow,
} from "./values.ts";

/** Where an answer goes: a head, body text in chunks, an end. */
export interface Sink {
  head(head: WorkerHead): void;
  chunk(text: string): void;
  end(end: WorkerEnd): void;
}

const JSON_TYPE = "application/json; charset=utf-8";
/** Body text is flushed to the sink in pieces of about this size, so memory stays bounded. */
const CHUNK = 64 * 1024;

/** A database name as introspection found it: exact, or the one case-insensitive match. */
async function resolveTable(db: Db, name: string): Promise<{ name: string; type: string } | null> {
  const rows = await db.all(
    "SELECT name, type FROM sqlite_schema WHERE type IN ('table','view') AND name = ?1 COLLATE NOCASE",
    [name],
  );
  const exact = rows.find((r) => r[0] === name) ?? (rows.length === 1 ? rows[0] : undefined);
  return exact ? { name: String(exact[0]), type: String(exact[1]) } : null;
}

function jsonAnswer(sink: Sink, status: number, body: unknown, started: number): void {
  sink.head({ status, contentType: JSON_TYPE });
  sink.chunk(JSON.stringify(body));
  sink.end({ ok: status < 400, rows: 0, durationMs: performance.now() - started });
}

function decodeValue(v: unknown): unknown {
  if (v !== null && typeof v === "object" && (v as { $base64?: unknown }).$base64 === true) {
    return Uint8Array.from(
      atob(String((v as { encoded?: unknown }).encoded)),
      (c) => c.charCodeAt(0),
    );
  }
  return v;
}

/** Params as the driver binds them: `{"$base64"}` objects become bytes. */
function decodeParams(
  params: unknown,
): unknown[] | Record<string, unknown> | undefined {
  if (params === undefined || params === null) return undefined;
  if (Array.isArray(params)) return params.map(decodeValue);
  return Object.fromEntries(
    Object.entries(params as Record<string, unknown>).map(([k, v]) => [k, decodeValue(v)]),
  );
}

function bool(v: unknown): boolean {
  return v !== null && v !== undefined && Number(v) !== 0;
}

/** Runs one request against the database; every answer, error or not, goes to the sink. */
export class Executor {
  #taint = new Map<string, string>();
  #taintedTriggers = false;
  #schemaVersion: unknown = undefined;

  constructor(private db: Db, private write: boolean, private label: string) {}

  async handle(req: WorkerRequest, sink: Sink): Promise<void> {
    const started = performance.now();
    try {
      switch (req.op) {
        case "info":
          return jsonAnswer(sink, 200, await this.#info(), started);
        case "tables":
          return jsonAnswer(sink, 200, await this.#tables(), started);
        case "table":
        case "indexes": {
          const table = await resolveTable(this.db, req.name);
          if (!table) {
            return jsonAnswer(sink, 404, { error: `no such table: ${req.name}` }, started);
          }
          const body = req.op === "table"
            ? await this.#table(table)
            : await this.#indexes(table.name);
          return jsonAnswer(sink, 200, body, started);
        }
        case "query":
        case "explain":
          return await this.#query(req, sink, started);
      }
    } catch (error) {
      const status = error instanceof RefusedError
        ? 403
        : error instanceof SqlTextError || error instanceof DbError
        ? 400
        : 500;
      const message = status === 500
        ? "internal error in the query worker"
        : (error as Error).message;
      jsonAnswer(sink, status, { error: message }, started);
    }
  }

  async #info() {
    const one = async (sql: string) => (await this.db.all(sql))[0]?.[0];
    const counts = await this.db.all(
      "SELECT type, count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' GROUP BY type",
    );
    const count = (t: string) => Number(counts.find((r) => r[0] === t)?.[1] ?? 0);
    const pageSize = Number(await one("PRAGMA page_size"));
    const pageCount = Number(await one("PRAGMA page_count"));
    return {
      database: this.label,
      read_only: !this.write,
      sqlite_version: String(await one("SELECT sqlite_version()")),
      size_bytes: pageSize * pageCount,
      page_size: pageSize,
      journal_mode: String(await one("PRAGMA journal_mode")),
      tables: count("table"),
      views: count("view"),
      indexes: count("index"),
      triggers: count("trigger"),
    };
  }

  async #tables(): Promise<string[]> {
    const rows = await this.db.all(
      "SELECT name FROM sqlite_schema WHERE type IN ('table','view') " +
        "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    );
    return rows.map((r) => String(r[0]));
  }

  async #table(table: { name: string; type: string }) {
    const cols = await this.db.all(
      'SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?1)',
      [table.name],
    );
    const list = await this.db.all("SELECT wr, strict FROM pragma_table_list(?1)", [table.name]);
    return {
      name: table.name,
      type: table.type,
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

  async #indexes(table: string) {
    const list = await this.db.all(
      'SELECT name, "unique", origin, partial FROM pragma_index_list(?1) ORDER BY name',
      [table],
    );
    const out = [];
    for (const ix of list) {
      const cols = await this.db.all(
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

  /** Recomputes which views and triggers use denied functions, when the schema changed. */
  async #refreshTaint(): Promise<void> {
    const version = (await this.db.all("PRAGMA schema_version"))[0]?.[0];
    if (version === this.#schemaVersion) return;
    const rows = await this.db.all(
      "SELECT name, type, sql FROM sqlite_schema WHERE type IN ('view','trigger') AND sql IS NOT NULL",
    );
    const objects = rows.map((r) => {
      let tokens: ReturnType<typeof tokenize> = [];
      try {
        tokens = tokenize(String(r[2]));
      } catch { /* unreadable SQL cannot compile either */ }
      return { name: String(r[0]), type: String(r[1]), tokens };
    });
    this.#taint = taintedObjects(objects);
    this.#taintedTriggers = objects.some((o) =>
      o.type === "trigger" && this.#taint.has(o.name.toLowerCase())
    );
    this.#schemaVersion = version;
  }

  async #query(
    req: Extract<WorkerRequest, { op: "query" | "explain" }>,
    sink: Sink,
    started: number,
  ): Promise<void> {
    const { statement, tokens } = singleStatement(req.sql);
    await this.#refreshTaint();
    const write = this.write && !req.readOnly;
    checkTokens(tokens, write, this.#taint);
    const head = tokens[0].value.toUpperCase();
    const sql = req.op === "explain" ? `EXPLAIN QUERY PLAN ${statement}` : statement;
    if (head !== "EXPLAIN") {
      const ops: Op[] = (await this.db.all(`EXPLAIN ${statement}`)).map((r) => ({
        opcode: String(r[1]),
        p1: Number(r[2]),
        p2: Number(r[3]),
        p3: Number(r[4]),
        p4: r[5] === null ? null : String(r[5]),
      }));
      checkProgram(ops, write, this.#taintedTriggers);
    }
    const download = req.format !== "json";
    const cap = download ? Infinity : req.maxRows;
    let columns: string[] = [];
    let rows = 0;
    let truncated = false;
    let buf = "";
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
    const values: ApiValue[][] = [];
    const onColumns = (cols: string[]) => {
      columns = cols;
      if (!download) return;
      sendHead();
      if (req.format === "csv") buf += csvHeader(columns);
      else if (req.format === "xml") buf += xmlHead(columns);
      else buf += `{"columns":${JSON.stringify(columns)},"rows":[`;
    };
    const onRow = (row: unknown[]): boolean => {
      if (rows >= cap) {
        truncated = true;
        return false;
      }
      const converted = row.map(toApiValue);
      rows++;
      if (!download) {
        values.push(converted);
        return true;
      }
      if (req.format === "csv") buf += csvLine(converted);
      else if (req.format === "xml") buf += xmlRow(columns, converted);
      else buf += (rows > 1 ? "," : "") + JSON.stringify(converted);
      flush(false);
      return true;
    };
    let result: { changes?: number; lastInsertRowid?: unknown };
    try {
      result = await this.db.run(sql, decodeParams(req.params), onColumns, onRow);
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
      else if (req.format === "json-download") {
        buf += `],"stats":${JSON.stringify(stats)},"truncated":false}`;
      }
      flush(true);
    } else {
      sink.head({ status: 200, contentType: JSON_TYPE });
      sink.chunk(JSON.stringify({ columns, rows: values, stats, truncated }));
    }
    sink.end({ ok: true, rows, durationMs });
  }
}
