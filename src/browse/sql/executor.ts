import { type Db, DbError, RefusedError, TimeLimitError, TooLargeError } from "./db.ts";
import {
  describeTable,
  indexes,
  indexesAnswer,
  info,
  listTables,
  type ReadRows,
  tableAnswer,
} from "./introspect.ts";
import type { WorkerRequest } from "../pool/protocol.ts";
import { JSON_TYPE, runQuery, type Sink } from "./query.ts";
import { SqlTextError } from "./sql_text.ts";

function jsonAnswer(sink: Sink, status: number, body: unknown, started: number): void {
  sink.head({ status, contentType: JSON_TYPE });
  sink.chunk(JSON.stringify(body));
  sink.end({ ok: status < 400, rows: 0, durationMs: performance.now() - started });
}

/** A message safe to show: the database's path replaced by its label. */
export function scrub(message: string, paths: readonly string[], label: string): string {
  let out = message;
  for (const p of paths) if (p.length > 1) out = out.replaceAll(p, label);
  return out;
}

/**
 * Runs one request against the database; every answer, error or not, goes to the sink. What
 * a statement may do is the engine's business (the authorizer, for a local file); a request
 * can leave nothing behind on the connection (no transaction, no TEMP object, no setting), so
 * nothing is checked or put back after it, except that no transaction is open.
 */
export class Executor {
  #spoiled = false;

  constructor(
    private db: Db,
    private write: boolean,
    private label: string,
    private paths: readonly string[] = [],
  ) {}

  /** Set when a transaction was left open: the worker must be replaced. */
  get spoiled(): boolean {
    return this.#spoiled;
  }

  async handle(req: WorkerRequest, sink: Sink): Promise<void> {
    const started = performance.now();
    if (req.timeLeftMs !== undefined) this.db.timeLimit?.(req.timeLeftMs, req.limitMs ?? 0);
    this.db.hold?.();
    const all: ReadRows = (sql, params) => this.db.all(sql, params);
    try {
      switch (req.op) {
        case "info":
          return jsonAnswer(sink, 200, await info(all, this.label, this.write), started);
        case "tables":
          return jsonAnswer(sink, 200, (await listTables(all)).map((t) => t.name), started);
        case "table":
        case "indexes": {
          const t = await describeTable(all, req.name);
          if (!t) return jsonAnswer(sink, 404, { error: `no such table: ${req.name}` }, started);
          const body = req.op === "table"
            ? tableAnswer(t)
            : indexesAnswer(await indexes(all, t.name));
          return jsonAnswer(sink, 200, body, started);
        }
        case "query":
        case "explain":
          return await runQuery(this.db, this.write, req, sink, started);
      }
    } catch (error) {
      this.#release();
      const status = error instanceof RefusedError
        ? 403
        : error instanceof TimeLimitError
        ? 504
        : error instanceof TooLargeError
        ? 413
        : error instanceof DbError && error.code === "UNREACHABLE"
        ? 503
        : error instanceof SqlTextError || error instanceof DbError
        ? 400
        : 500;
      const message = status === 500
        ? "internal error in the query worker"
        : scrub((error as Error).message, this.paths, this.label);
      jsonAnswer(sink, status, { error: message }, started);
    } finally {
      this.#release();
      if (this.db.inTransaction()) this.#spoiled = true;
    }
  }

  close(): void {
    this.db.close();
  }

  /** Ends the request's shared read transaction; one that cannot end spoils the worker. */
  #release(): void {
    try {
      this.db.release?.();
    } catch {
      this.#spoiled = true;
    }
  }
}
