import { type Db, DbError } from "./db_core.ts";
import { RefusedError } from "./guard.ts";
import { indexes, info, resolveTable, table, tables } from "./introspect.ts";
import { ProgramCache } from "./programs.ts";
import type { WorkerRequest } from "../pool/protocol.ts";
import { JSON_TYPE, runQuery, type Sink } from "./query.ts";
import { baseline, HARD_HEAP_LIMIT, restore } from "./settings.ts";
import { SqlTextError } from "./sql_text.ts";
import { UnlistableObjects } from "./unlistable.ts";

export type { Sink } from "./query.ts";

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
 * Runs one request against the database; every answer, error or not, goes to the sink. After
 * each request the connection is checked: no transaction open, no setting changed.
 *
 * With a fallback, a request this connection's engine cannot answer (DbError.fallback: a
 * function, module or schema only libsql has, or rows it does not read within its limits) is
 * handed whole to the fallback executor, made on first need, which answers it with its own
 * connection, checks and settings.
 */
export class Executor {
  #base: Map<string, string> | undefined;
  #unlistable = new UnlistableObjects();
  #programs = new ProgramCache();
  #spoiled = false;
  #other: Executor | undefined;

  constructor(
    private db: Db,
    private write: boolean,
    private label: string,
    private paths: readonly string[] = [],
    private fallback?: () => Promise<Executor>,
  ) {}

  /** Set when the worker could not put a connection back as it was: it must be replaced. */
  get spoiled(): boolean {
    return this.#spoiled || (this.#other?.spoiled ?? false);
  }

  /** Sets the worker's limits and records the settings later requests are compared with. */
  async init(): Promise<void> {
    this.#base = await baseline(this.db);
  }

  async handle(req: WorkerRequest, given: Sink): Promise<void> {
    const started = performance.now();
    let answered = false;
    const sink: Sink = this.fallback
      ? {
        head(h) {
          answered = true;
          given.head(h);
        },
        chunk(b) {
          answered = true;
          given.chunk(b);
        },
        end: (e) => given.end(e),
      }
      : given;
    let other: Executor | undefined;
    this.db.hold?.();
    try {
      switch (req.op) {
        case "info":
          return jsonAnswer(sink, 200, await info(this.db, this.label, this.write), started);
        case "tables":
          return jsonAnswer(sink, 200, await tables(this.db), started);
        case "table":
        case "indexes": {
          const t = await resolveTable(this.db, req.name);
          if (!t) return jsonAnswer(sink, 404, { error: `no such table: ${req.name}` }, started);
          const body = req.op === "table"
            ? await table(this.db, t)
            : await indexes(this.db, t.name);
          return jsonAnswer(sink, 200, body, started);
        }
        case "query":
        case "explain":
          return await runQuery(
            {
              db: this.db,
              write: this.write,
              label: this.label,
              unlistable: this.#unlistable,
              programs: this.#programs,
            },
            req,
            sink,
            started,
          );
      }
    } catch (caught) {
      this.#release();
      if (caught instanceof DbError && caught.fallback && !answered) {
        other = await this.#fallbackExecutor();
        if (other) return;
      }
      // SQLite's own refusal of a file function inside a view or trigger.
      const error = caught instanceof DbError && /^unsafe use of /.test(caught.message)
        ? new RefusedError(`${caught.message}: not allowed`)
        : caught;
      const status = error instanceof RefusedError
        ? 403
        : error instanceof SqlTextError || error instanceof DbError
        ? 400
        : 500;
      let message = status === 500
        ? "internal error in the query worker"
        : scrub((error as Error).message, this.paths, this.label);
      if (error instanceof DbError && error.code === "SQLITE_NOMEM") {
        message = `out of memory: the query needs more than the worker's ${
          HARD_HEAP_LIMIT / 1024 / 1024
        } MiB`;
      }
      jsonAnswer(sink, status, { error: message }, started);
    } finally {
      this.#release();
      await this.#settle();
      if (other) await other.handle(req, given);
    }
  }

  close(): void {
    this.db.close();
    this.#other?.close();
  }

  /** The fallback executor, made once; undefined when there is none or it cannot open. */
  async #fallbackExecutor(): Promise<Executor | undefined> {
    if (!this.#other && this.fallback) {
      try {
        this.#other = await this.fallback();
      } catch {
        this.fallback = undefined;
      }
    }
    return this.#other;
  }

  /** Ends the request's shared read transaction; one that cannot end spoils the worker. */
  #release(): void {
    try {
      this.db.release?.();
    } catch {
      this.#spoiled = true;
    }
  }

  async #settle(): Promise<void> {
    if (!this.#base) return;
    try {
      if (!(await restore(this.db, this.#base))) this.#spoiled = true;
    } catch {
      this.#spoiled = true;
    }
  }
}
