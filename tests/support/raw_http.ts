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
