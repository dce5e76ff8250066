/** What a /query or /explain request asks for, read from its query string or body. */
import type { Context } from "hono";
import { HttpError } from "./http_error.ts";

export const FORMATS = ["json", "csv", "xml"] as const;
export type Format = typeof FORMATS[number];

export interface QueryInput {
  query: string;
  params?: unknown[] | Record<string, unknown>;
  /** Set only when asked for: any explicit format, json included, is a download. */
  format?: Format;
}

/** An integer the worker binds as SQLite's INTEGER, exactly: its decimal text. */
export interface ExactInt {
  $int: string;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * JSON.parse that keeps every integer literal an integer, as a bigint, by reading each
 * number's source text (the reviver's third argument, V8's JSON.parse source text access):
 * `5` is bound as SQLite's INTEGER 5 and stays exact beyond 2^53. Numbers written with a
 * fraction or an exponent stay doubles (REAL): that is what they say they are. Text that is
 * not JSON is a 400 saying `invalid`.
 */
export function parseJson(text: string, invalid: string): unknown {
  try {
    return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
      if (typeof value !== "number") return value;
      const source = context?.source;
      return source !== undefined && /^-?\d+$/.test(source) ? BigInt(source) : value;
    });
  } catch {
    throw new HttpError(400, invalid);
  }
}

function convertParam(v: unknown, name: string): unknown {
  if (v === null || typeof v === "string") return v;
  if (typeof v === "number") {
    // 1e400 parses as Infinity, which the JSON hop to the worker would turn into null.
    if (!Number.isFinite(v)) throw new HttpError(400, `${name}: the number is out of range`);
    return v;
  }
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "bigint") {
    if (v < INT64_MIN || v > INT64_MAX) {
      throw new HttpError(400, `${name}: ${v} is outside the 64-bit integer range`);
    }
    const exact: ExactInt = { $int: v.toString() };
    return exact;
  }
  if (typeof v === "object" && (v as { $base64?: unknown }).$base64 === true) {
    const encoded = (v as { encoded?: unknown }).encoded;
    if (typeof encoded !== "string") throw new HttpError(400, "a $base64 param needs encoded");
    try {
      Uint8Array.fromBase64(encoded);
    } catch {
      throw new HttpError(400, "a $base64 param is not valid base64");
    }
    // Decoded in the worker: bytes do not survive the JSON hop.
    return { $base64: true, encoded };
  }
  throw new HttpError(400, "params values must be null, numbers, strings or $base64 objects");
}

/**
 * Bind parameters as the worker takes them: a JSON array or object, given as text (query
 * string, form) or already parsed (JSON body). Integers that a double cannot hold exactly go
 * as `{"$int": "<decimal>"}`; beyond 64 bits they are refused, naming the parameter.
 */
export function parseParams(raw: unknown): unknown[] | Record<string, unknown> | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  const invalid = "params must be a JSON array or object";
  const value = typeof raw === "string" ? parseJson(raw, invalid) : raw;
  if (typeof value !== "object" || value === null) throw new HttpError(400, invalid);
  return Array.isArray(value)
    ? value.map((v, i) => convertParam(v, `params[${i}]`))
    : Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, convertParam(v, `params.${k}`)]),
    );
}

export function parseFormat(raw: unknown): Format | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (typeof raw === "string" && (FORMATS as readonly string[]).includes(raw)) return raw as Format;
  throw new HttpError(400, "format must be json, csv or xml");
}

/** The query input of GET (query string) or POST (JSON, form or text/plain body). */
export async function queryInput(c: Context, maxChars: number): Promise<QueryInput> {
  let query: unknown = c.req.query("query");
  let params: unknown = c.req.query("params");
  let format: unknown = c.req.query("format");
  if (c.req.method === "POST") {
    // Within the size the body-limit middleware allows (app.ts).
    const text = await c.req.text();
    const type = (c.req.header("content-type") ?? "text/plain").split(";")[0].trim().toLowerCase();
    if (type === "application/json") {
      const body = parseJson(text, "the body is not valid JSON");
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
