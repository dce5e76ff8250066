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
