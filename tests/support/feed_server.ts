import { deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { formatRfc3339 } from "../../src/time/rfc3339.ts";
import type { Entry } from "../../src/model/entry.ts";
import { orderEntries } from "../../src/feeds/merge.ts";

export const FIXTURES = new URL("../fixtures/feeds/", import.meta.url).pathname;

/** The expected outcome of one fixture: a feed, or the reason it is refused. */
export type Expected =
  | {
    format: string;
    title: string | null;
    entries: { id: string; link: string | null; title: string; published: string | null }[];
    warnings: string[];
  }
  | { error: string };

export function fixtureNames(): string[] {
  return [...Deno.readDirSync(FIXTURES)]
    .filter((e) => e.isFile)
    .map((e) => e.name)
    .sort();
}

export function expectedFor(name: string): Expected {
  return JSON.parse(Deno.readTextFileSync(`${FIXTURES}expected/${name}.json`));
}

/** A parsed feed as the expected files (and `preview --json`) give it, warnings aside. */
export function asExpected(
  feed: { format: string; title: string | null; entries: Entry[] },
): Omit<Extract<Expected, { format: string }>, "warnings"> {
  return {
    format: feed.format,
    title: feed.title,
    entries: orderEntries([feed.entries]).map((e) => ({
      id: e.id,
      link: e.link,
      title: e.title,
      published: e.published ? formatRfc3339(e.published) : null,
    })),
  };
}

/** What the server saw, so tests can assert on request headers. */
export interface SeenRequest {
  path: string;
  headers: Headers;
}

export interface FeedServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  base: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  xml: "application/xml",
  html: "text/html; charset=utf-8",
  json: "application/json",
};

/**
 * A local HTTP server for feed tests, on 127.0.0.1 and an OS-chosen port.
 *
 *   /feeds/NAME             the fixture file, with ETag and Last-Modified; 304 when the
 *                           request's If-None-Match or If-Modified-Since matches
 *   /gzip|deflate|deflate-raw/NAME   the fixture compressed that way
 *   /redirect/N/NAME        N redirects (302, relative Location) then the fixture
 *   /redirect-loop          redirects to itself forever
 *   /status/CODE            that status with an HTML error page
 *   /big/BYTES              a valid RSS prefix then BYTES of padding, streamed
 *   /slow                   headers, then a body that never finishes
 *   /hang                   never answers
 *   /empty                  200 with an empty body
 *   /typed/NAME?type=T      the fixture with Content-Type T
 */
export function startFeedServer(): FeedServer {
  const requests: SeenRequest[] = [];
  const hanging: ((value: Response) => void)[] = [];
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const path = url.pathname;
    requests.push({ path, headers: req.headers });
    const parts = path.split("/").filter(Boolean);
    const fixture = async (name: string) => await Deno.readFile(FIXTURES + name);
    const typeOf = (name: string) => TYPES[name.split(".").pop() ?? ""] ?? "application/xml";

    switch (parts[0]) {
      case "feeds": {
        const name = parts.slice(1).join("/");
        const etag = `"${name}-v1"`;
        const lastModified = "Mon, 01 Jan 2024 00:00:00 GMT";
        if (
          req.headers.get("if-none-match") === etag ||
          req.headers.get("if-modified-since") === lastModified
        ) {
          return new Response(null, { status: 304, headers: { etag } });
        }
        return new Response(await fixture(name), {
          headers: { "content-type": typeOf(name), etag, "last-modified": lastModified },
        });
      }
      case "gzip":
      case "deflate":
      case "deflate-raw": {
        const data = await fixture(parts[1]);
        const packed = parts[0] === "gzip"
          ? gzipSync(data)
          : parts[0] === "deflate"
          ? deflateSync(data)
          : deflateRawSync(data);
        return new Response(new Uint8Array(packed), {
          headers: {
            "content-type": typeOf(parts[1]),
            "content-encoding": parts[0] === "gzip" ? "gzip" : "deflate",
          },
        });
      }
      case "redirect": {
        const left = Number(parts[1]);
        const rest = parts.slice(2).join("/");
        const location = left > 1 ? `/redirect/${left - 1}/${rest}` : `/feeds/${rest}`;
        return new Response(null, { status: 302, headers: { location } });
      }
      case "redirect-loop":
        return new Response(null, { status: 301, headers: { location: "/redirect-loop" } });
      case "status":
        return new Response(`<html><body><h1>Error ${parts[1]}</h1></body></html>`, {
          status: Number(parts[1]),
          headers: { "content-type": "text/html" },
        });
      case "big": {
        const total = Number(parts[1]);
        let sent = 0;
        const head = new TextEncoder().encode('<rss version="2.0"><channel><title>Big</title>');
        const pad = new TextEncoder().encode(`<!-- ${"x".repeat(65_000)} -->`);
        return new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              if (sent === 0) {
                controller.enqueue(head);
                sent += head.length;
              } else if (sent < total) {
                controller.enqueue(pad);
                sent += pad.length;
              } else {
                controller.enqueue(new TextEncoder().encode("</channel></rss>"));
                controller.close();
              }
            },
          }),
          { headers: { "content-type": "application/rss+xml" } },
        );
      }
      case "slow":
        return new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('<rss version="2.0"><channel>'));
              streams.push(controller);
            },
          }),
          { headers: { "content-type": "application/rss+xml" } },
        );
      case "hang":
        return await new Promise<Response>((resolve) => hanging.push(resolve));
      case "empty":
        return new Response("", { headers: { "content-type": "application/rss+xml" } });
      case "typed":
        return new Response(await fixture(parts[1]), {
          headers: { "content-type": url.searchParams.get("type") ?? "application/xml" },
        });
    }
    return new Response("not found", { status: 404 });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    requests,
    async close() {
      for (const resolve of hanging) resolve(new Response("late"));
      for (const controller of streams) {
        try {
          controller.close();
        } catch { /* already closed by the client going away */ }
      }
      await server.shutdown();
    },
  };
}
