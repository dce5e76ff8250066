import { Hono } from "hono";
import type { Context } from "hono";
import { History } from "./history.ts";
import { PAGE_HTML } from "./page.ts";
import { type Answer, QueryTimeoutError, WorkerError, type WorkerPool } from "./pool.ts";
import { QueueFullError } from "./pool.ts";
import type { WorkerRequest } from "./protocol.ts";
import { allowedHosts, hostAllowed, originAllowed, tokenMatches } from "./security.ts";

export interface AppOptions {
  pool: Pick<WorkerPool, "run">;
  /** The address the server is bound to and its port, for the Host check. */
  host: string;
  port: number;
  /** Bearer token every API call must carry, if set. */
  token?: string;
  cors: readonly string[];
  maxRows: number;
  /** Largest request body accepted, bytes. */
  maxBodyBytes?: number;
  /** Longest query text accepted, characters. */
  maxQueryChars?: number;
  history?: History;
}

const FORMATS = ["json", "csv", "xml"] as const;
type Format = typeof FORMATS[number];

/** A request the API refuses: status and a message for `{"error"}`. */
class HttpError extends Error {
  constructor(readonly status: 400 | 401 | 403 | 404 | 413, message: string) {
    super(message);
  }
}

const SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

function errorResponse(status: number, message: string, extra: Record<string, string> = {}) {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...SECURITY_HEADERS, ...extra },
  });
}

/** Reads a body up to `limit` bytes; beyond that the request is a 413, whatever it claims. */
async function readBody(c: Context, limit: number): Promise<Uint8Array> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) throw new HttpError(413, `request body larger than ${limit} bytes`);
  const body = c.req.raw.body;
  if (!body) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of body) {
    size += part.length;
    if (size > limit) throw new HttpError(413, `request body larger than ${limit} bytes`);
    parts.push(part);
  }
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

interface QueryInput {
  query: string;
  params?: unknown[] | Record<string, unknown>;
  /** Set only when asked for: any explicit format, json included, is a download. */
  format?: Format;
}

function parseParams(raw: unknown): unknown[] | Record<string, unknown> | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new HttpError(400, "params must be a JSON array or object");
    }
  }
  if (typeof value !== "object" || value === null) {
    throw new HttpError(400, "params must be a JSON array or object");
  }
  const convert = (v: unknown): unknown => {
    if (v === null || typeof v === "number" || typeof v === "string") return v;
    if (typeof v === "boolean") return v ? 1 : 0;
    if (typeof v === "object" && (v as { $base64?: unknown }).$base64 === true) {
      const encoded = (v as { encoded?: unknown }).encoded;
      if (typeof encoded !== "string") throw new HttpError(400, "a $base64 param needs encoded");
      try {
        atob(encoded);
      } catch {
        throw new HttpError(400, "a $base64 param is not valid base64");
      }
      // Decoded in the worker: bytes do not survive the JSON hop.
      return { $base64: true, encoded };
    }
    throw new HttpError(400, "params values must be null, numbers, strings or $base64 objects");
  };
  return Array.isArray(value)
    ? value.map(convert)
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v)]));
}

function parseFormat(raw: unknown): Format | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (typeof raw === "string" && (FORMATS as readonly string[]).includes(raw)) return raw as Format;
  throw new HttpError(400, "format must be json, csv or xml");
}

/** The query input of GET (query string) or POST (JSON, form or text/plain body). */
async function queryInput(c: Context, maxBody: number, maxChars: number): Promise<QueryInput> {
  const url = new URL(c.req.url);
  let query: unknown = url.searchParams.get("query") ?? undefined;
  let params: unknown = url.searchParams.get("params") ?? undefined;
  let format: unknown = url.searchParams.get("format") ?? undefined;
  if (c.req.method === "POST") {
    const bytes = await readBody(c, maxBody);
    const text = new TextDecoder().decode(bytes);
    const type = (c.req.header("content-type") ?? "text/plain").split(";")[0].trim().toLowerCase();
    if (type === "application/json") {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new HttpError(400, "the body is not valid JSON");
      }
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new HttpError(
          400,
          'the JSON body must be an object: {"query": "...", "params": [...]}',
        );
      }
      const b = body as Record<string, unknown>;
      query = b.query;
      params = b.params ?? params;
      format = b.format ?? format;
    } else if (type === "application/x-www-form-urlencoded") {
      const form = new URLSearchParams(text);
      query = form.get("query") ?? undefined;
      params = form.get("params") ?? params;
      format = form.get("format") ?? format;
    } else if (type === "text/plain" || type === "application/sql") {
      query = text;
    } else {
      throw new HttpError(400, `unsupported Content-Type ${type}: use JSON, a form or text/plain`);
    }
  }
  if (typeof query !== "string" || query.trim() === "") {
    throw new HttpError(400, "a query is required (query=... or a body)");
  }
  if (query.length > maxChars) throw new HttpError(413, `query longer than ${maxChars} characters`);
  return { query, params: parseParams(params), format: parseFormat(format) };
}

function answerResponse(answer: Answer, extra: Record<string, string>): Response {
  const headers: Record<string, string> = {
    "Content-Type": answer.head.contentType,
    ...SECURITY_HEADERS,
    ...extra,
  };
  if (answer.head.filename) {
    headers["Content-Disposition"] = `attachment; filename="${answer.head.filename}"`;
  }
  return new Response(answer.body as BodyInit, { status: answer.head.status, headers });
}

/** The browser's HTTP app: the API under /api and the page at /. */
export function createApp(options: AppOptions): Hono {
  const app = new Hono();
  const history = options.history ?? new History(500);
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const maxChars = options.maxQueryChars ?? 100_000;
  const hosts = allowedHosts(options.host, options.port);
  const corsHeaders = (c: Context): Record<string, string> => {
    const origin = c.req.header("origin");
    if (!origin || !(options.cors.includes(origin) || options.cors.includes("*"))) return {};
    return {
      "Access-Control-Allow-Origin": options.cors.includes("*") ? "*" : origin,
      Vary: "Origin",
    };
  };

  app.use("*", async (c, next) => {
    if (!hostAllowed(hosts, c.req.header("host"))) {
      return errorResponse(
        403,
        "this Host is not allowed (start with --host to serve other names)",
      );
    }
    const sameOrigin = originAllowed(
      c.req.header("origin"),
      c.req.header("sec-fetch-site"),
      c.req.header("host"),
      options.cors,
    );
    const path = new URL(c.req.url).pathname;
    if (!path.startsWith("/api/") && path !== "/api") return await next();
    if (c.req.method === "OPTIONS") {
      const cors = corsHeaders(c);
      if (!cors["Access-Control-Allow-Origin"]) return errorResponse(403, "origin not allowed");
      return new Response(null, {
        status: 204,
        headers: {
          ...cors,
          "Access-Control-Allow-Methods": "GET, POST",
          "Access-Control-Allow-Headers": "Authorization, Content-Type",
          "Access-Control-Max-Age": "600",
        },
      });
    }
    if (!sameOrigin) return errorResponse(403, "cross-origin request refused (see --cors)");
    if (
      options.token !== undefined && !tokenMatches(c.req.header("authorization"), options.token)
    ) {
      return errorResponse(401, "missing or wrong bearer token", {
        "WWW-Authenticate": 'Bearer realm="courier browse"',
      });
    }
    await next();
    for (const [k, v] of Object.entries(corsHeaders(c))) c.res.headers.set(k, v);
  });

  const run = async (c: Context, req: WorkerRequest, download = false) => {
    const answer = await options.pool.run(req, download, c.req.raw.signal);
    return { answer, response: answerResponse(answer, corsHeaders(c)) };
  };

  app.get("/", () =>
    new Response(PAGE_HTML, {
      headers: {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy":
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'",
        ...SECURITY_HEADERS,
      },
    }));
  app.get("/api/info", async (c) => (await run(c, { op: "info" })).response);
  app.get("/api/tables", async (c) => (await run(c, { op: "tables" })).response);
  app.get(
    "/api/tables/:table",
    async (c) => (await run(c, { op: "table", name: c.req.param("table") })).response,
  );
  app.get(
    "/api/tables/:table/indexes",
    async (c) => (await run(c, { op: "indexes", name: c.req.param("table") })).response,
  );
  app.get("/api/history", (c) => c.json(history.list(), 200, SECURITY_HEADERS));

  for (const op of ["query", "explain"] as const) {
    const handler = async (c: Context) => {
      const input = await queryInput(c, maxBody, maxChars);
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
    app.get(`/api/${op}`, handler);
    app.post(`/api/${op}`, handler);
  }

  app.notFound(() => errorResponse(404, "not found"));
  app.onError((error) => {
    if (error instanceof HttpError) return errorResponse(error.status, error.message);
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
