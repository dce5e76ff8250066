import { Hono } from "hono";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { History } from "./history.ts";
import { errorResponse, HttpError } from "./http_error.ts";
import { queryInput } from "./input.ts";
import { bodyLimitGuard } from "./middleware/body_limit.ts";
import { corsGuard } from "./middleware/cors.ts";
import { securedResponse, securityHeaders } from "./middleware/headers.ts";
import { hostGuard } from "./middleware/host.ts";
import { originGuard } from "./middleware/origin.ts";
import { tokenGuard } from "./middleware/token.ts";
import { mountPages } from "./pages/routes.tsx";
import {
  type Answer,
  MAX_ANSWER_BYTES,
  QueryTimeoutError,
  QueueFullError,
  STALL_MS,
  WorkerError,
  type WorkerPool,
} from "../pool/pool.ts";
import { AnswerBudget } from "./answer_budget.ts";
import type { WorkerRequest } from "../pool/protocol.ts";
import { JSON_TYPE } from "../sql/query.ts";
import { allowedHosts } from "./security.ts";

export interface AppOptions {
  pool: Pick<WorkerPool, "run">;
  /** The address the server is bound to and its port, for the Host check. */
  host: string;
  port: number;
  /** Bearer token every API call must carry, if set. */
  token?: string;
  cors: readonly string[];
  maxRows: number;
  history?: History;
  /** How the pages name the database, and whether they offer writes (--write). */
  label?: string;
  write?: boolean;
  /** Default: room for MAX_ANSWER_BYTES four times, STALL_MS of stall. */
  answers?: AnswerBudget;
  /** Whom a request comes from, for sharing the workers (the front's tag); default: one client. */
  clientOf?: (request: Request) => string;
}

/** Largest request body accepted, bytes. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Longest query text accepted, characters. */
const MAX_QUERY_CHARS = 100_000;

/** A large answer the budget has no room for. */
function budgetFull(): Response {
  return errorResponse(
    503,
    "the server is holding as many large answers as it may for clients that have not read " +
      "them yet: retry later, or download the rows (format=csv, xml or json)",
    { "Retry-After": "5" },
  );
}

function answerResponse(answer: Answer, budget: AnswerBudget): Response {
  const headers: [string, string][] = [["Content-Type", answer.head.contentType]];
  if (answer.head.filename) {
    headers.push(["Content-Disposition", `attachment; filename="${answer.head.filename}"`]);
  }
  // A download streams from its worker with back-pressure; an answer read whole is held
  // against the budget until its client takes it.
  const body = answer.body instanceof Uint8Array ? budget.body(answer.body) : answer.body;
  if (body === null) return budgetFull();
  return securedResponse(body as BodyInit, answer.head.status, headers);
}

/** The browser's HTTP app: the API under /api and the pages at / and /db/ (pages/). */
export function createApp(options: AppOptions): Hono {
  const app = new Hono();
  const history = options.history ?? new History();
  const budget = options.answers ?? new AnswerBudget(4 * MAX_ANSWER_BYTES, STALL_MS);
  // On every path, so refusals and 404s carry them too.
  app.use("*", securityHeaders(), hostGuard(allowedHosts(options.host, options.port)));

  // The API is a route group with its guards as the group's middleware, so the router that
  // picks a handler is the one that runs them: a path reaches a handler only in a spelling the
  // router decodes to /api/..., and then the guards have run (a check of the raw URL path
  // missed `/%61pi/query`). Order: CORS (preflights), Origin, token, body size.
  const api = new Hono();
  api.use("*", corsGuard(options.cors), originGuard(options.cors));
  if (options.token !== undefined) api.use("*", tokenGuard(options.token));
  api.use("*", bodyLimitGuard(MAX_BODY_BYTES));

  const clientOf = options.clientOf ?? (() => "");
  const runFor = (req: WorkerRequest, download: boolean, from: Request) =>
    options.pool.run(req, download, from.signal, clientOf(from));
  const run = async (c: Context, req: WorkerRequest, download = false) => {
    const answer = await runFor(req, download, c.req.raw);
    return { answer, response: answerResponse(answer, budget) };
  };

  mountPages(app, {
    run: runFor,
    respond: (answer) => answerResponse(answer, budget),
    history,
    maxRows: options.maxRows,
    label: options.label ?? "database",
    write: options.write ?? false,
    token: options.token,
  });
  api.get("/info", async (c) => (await run(c, { op: "info" })).response);
  api.get("/tables", async (c) => (await run(c, { op: "tables" })).response);
  api.get(
    "/tables/:table",
    async (c) => (await run(c, { op: "table", name: c.req.param("table") })).response,
  );
  api.get(
    "/tables/:table/indexes",
    async (c) => (await run(c, { op: "indexes", name: c.req.param("table") })).response,
  );
  // Built by the server, not a worker, and held against the same budget as theirs.
  api.get("/history", () => {
    const body = budget.body(history.pieces());
    if (body === null) return budgetFull();
    return securedResponse(body as BodyInit, 200, [["Content-Type", JSON_TYPE]]);
  });

  for (const op of ["query", "explain"] as const) {
    const handler = async (c: Context) => {
      const input = await queryInput(c, MAX_QUERY_CHARS);
      const download = op === "query" && input.format !== undefined;
      const { answer, response } = await run(c, {
        op,
        sql: input.query,
        params: input.params,
        format: !download ? "json" : input.format === "json" ? "json-download" : input.format!,
        maxRows: options.maxRows,
        readOnly: c.req.method !== "POST",
      }, download);
      answer.done.then((end) => {
        if (end?.ok) history.add(input.query, end.durationMs, end.rows);
      });
      return response;
    };
    api.get(`/${op}`, handler);
    api.post(`/${op}`, handler);
  }
  app.route("/api", api);

  app.notFound(() => errorResponse(404, "not found"));
  app.onError((error) => {
    if (error instanceof HttpError) return errorResponse(error.status, error.message);
    // Hono's own middleware refuses by throwing its answer, already in our shape.
    if (error instanceof HTTPException) return error.getResponse();
    if (error instanceof QueryTimeoutError) return errorResponse(504, error.message);
    if (error instanceof QueueFullError) {
      return errorResponse(503, error.message, { "Retry-After": String(error.retryAfterSeconds) });
    }
    if (error instanceof WorkerError) return errorResponse(500, error.message);
    // Never a stack or a server path: the detail stays in the server.
    return errorResponse(500, "internal server error");
  });
  return app;
}
