import assert from "node:assert/strict";
import { fetchFeedUrl } from "../../src/feeds/fetch.ts";

const HTML = "<html><head><title>502 Bad Gateway</title></head><body><h1>HTTP 502</h1>" +
  "<p>nginx</p></body></html>";

/**
 * A raw HTTP/1.1 server answering every request with `statusLine` and an HTML page, as a
 * broken reverse proxy does (Deno.serve would not let a test choose the reason phrase).
 */
function startRawServer(statusLine: string) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const encoder = new TextEncoder();
  const serving = (async () => {
    for await (const conn of listener) {
      try {
        await conn.read(new Uint8Array(8192));
        const head = [statusLine, "Content-Type: text/html", `Content-Length: ${HTML.length}`];
        await conn.write(
          encoder.encode(`${head.join("\r\n")}\r\nConnection: close\r\n\r\n${HTML}`),
        );
      } finally {
        conn.close();
      }
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/feed.xml`,
    async close() {
      listener.close();
      await serving;
    },
  };
}

for (
  const statusLine of [
    "HTTP/1.1 502 Bad Gateway",
    "HTTP/1.1 502 ",
    "HTTP/1.1 502 HTTP 502",
    "HTTP/1.1 502 <b>HTTP 502</b>",
  ]
) {
  Deno.test(`fetchFeedUrl: "${statusLine}" with an HTML body reads "HTTP 502 Bad Gateway"`, async () => {
    const server = startRawServer(statusLine);
    try {
      await assert.rejects(
        fetchFeedUrl(server.url, { timeoutMs: 10_000, maxBytes: 1_000_000 }),
        (error: Error) => {
          assert.equal(error.message, `${server.url}: HTTP 502 Bad Gateway`);
          return true;
        },
      );
    } finally {
      await server.close();
    }
  });
}
