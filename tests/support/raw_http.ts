/**
 * A raw HTTP/1.1 client over TCP, for what fetch hides: closing the socket mid-request,
 * reading slowly or not at all, and telling a complete chunked body from a cut one.
 */

const encoder = new TextEncoder();

/** Opens a connection and sends one request; the caller reads (or closes) it. */
export async function sendRaw(
  port: number,
  method: string,
  path: string,
  body = "",
  headers: Record<string, string> = {},
): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  if (method === "POST") lines.push(`Content-Length: ${encoder.encode(body).length}`);
  await conn.write(encoder.encode(lines.join("\r\n") + "\r\n\r\n" + body));
  return conn;
}

/** A POST of a JSON query, left open for the caller. */
export function sendQuery(port: number, query: string, extra: Record<string, unknown> = {}) {
  return sendRaw(
    port,
    "POST",
    "/api/query",
    JSON.stringify({ query, ...extra }),
    { "Content-Type": "application/json" },
  );
}

/**
 * Reads until the server closes the connection or resets it. `pace` is called between reads
 * (a slow reader awaits something there). Returns the bytes and whether it ended in an error.
 */
export async function readToEnd(
  conn: Deno.Conn,
  readSize = 64 * 1024,
  pace?: () => Promise<void>,
): Promise<{ bytes: Uint8Array; reset: boolean }> {
  const parts: Uint8Array[] = [];
  const buf = new Uint8Array(readSize);
  let reset = false;
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      parts.push(buf.slice(0, n));
      if (pace) await pace();
    }
  } catch {
    reset = true;
  }
  try {
    conn.close();
  } catch { /* already closed */ }
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    bytes.set(p, o);
    o += p.length;
  }
  return { bytes, reset };
}

export interface ParsedResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** Chunked: the terminating zero-length chunk arrived. Otherwise: Content-Length bytes did. */
  complete: boolean;
}

function indexOf(bytes: Uint8Array, needle: string, from = 0): number {
  const n = encoder.encode(needle);
  outer: for (let i = from; i <= bytes.length - n.length; i++) {
    for (let j = 0; j < n.length; j++) if (bytes[i + j] !== n[j]) continue outer;
    return i;
  }
  return -1;
}

/** Parses one response; a body cut short (no terminating chunk) is `complete: false`. */
export function parseResponse(bytes: Uint8Array): ParsedResponse {
  const decoder = new TextDecoder();
  const headEnd = indexOf(bytes, "\r\n\r\n");
  if (headEnd < 0) throw new Error("no complete response head");
  const [statusLine, ...lines] = decoder.decode(bytes.subarray(0, headEnd)).split("\r\n");
  const headers = new Headers(lines.map((l) => {
    const i = l.indexOf(":");
    return [l.slice(0, i).trim(), l.slice(i + 1).trim()] as [string, string];
  }));
  const status = Number(statusLine.split(" ")[1]);
  let rest = bytes.subarray(headEnd + 4);
  if (headers.get("transfer-encoding") !== "chunked") {
    const length = Number(headers.get("content-length") ?? "NaN");
    return { status, headers, body: rest, complete: rest.length === length };
  }
  const parts: Uint8Array[] = [];
  let complete = false;
  for (;;) {
    const lineEnd = indexOf(rest, "\r\n");
    if (lineEnd < 0) break;
    const size = parseInt(decoder.decode(rest.subarray(0, lineEnd)), 16);
    if (Number.isNaN(size)) break;
    const start = lineEnd + 2;
    if (size === 0) {
      complete = indexOf(rest, "\r\n", start) === start;
      break;
    }
    if (rest.length < start + size + 2) break;
    parts.push(rest.subarray(start, start + size));
    rest = rest.subarray(start + size + 2);
  }
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    body.set(p, o);
    o += p.length;
  }
  return { status, headers, body, complete };
}

/** One HTTP/1.1 exchange written byte for byte: fetch() would normalise the path and set Host. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  body: string;
}

function dechunk(raw: string): string {
  let out = "";
  let rest = raw;
  for (;;) {
    const eol = rest.indexOf("\r\n");
    if (eol < 0) return out;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/**
 * Sends `method target` to 127.0.0.1:port with the given headers (Host defaults to
 * 127.0.0.1:port) and reads the whole answer. Bodies are ASCII in these tests.
 */
export async function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body = "",
): Promise<RawAnswer> {
  const all: Record<string, string> = { Host: `127.0.0.1:${port}`, ...headers };
  if (body !== "" || method === "POST") all["Content-Length"] = String(body.length);
  all["Connection"] = "close";
  const head = `${method} ${target} HTTP/1.1\r\n` +
    Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n";
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(head + body));
  const text = await new Response(conn.readable).text();
  const split = text.indexOf("\r\n\r\n");
  const lines = text.slice(0, split).split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0])?.[1] ?? "0");
  const out = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    out.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const rawBody = text.slice(split + 4);
  return {
    status,
    headers: out,
    body: /chunked/i.test(out.get("transfer-encoding") ?? "") ? dechunk(rawBody) : rawBody,
  };
}
