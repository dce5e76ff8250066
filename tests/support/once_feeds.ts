/**
 * Local RSS servers for delivery tests: each path serves a feed built from items the test sets,
 * with an ETag and 304 answers like a well-behaved site, or a chosen HTTP error.
 */

export interface FeedItem {
  id: string;
  title: string;
  link?: string;
  /** Minutes after 2024-01-01T00:00Z; the item's pubDate. */
  minute?: number;
  /** `<category>` elements. */
  categories?: string[];
  /** The `<description>`, as text. */
  summary?: string;
}

/** Items `Post <id>` linking to https://example.org/<id>, one minute apart from `from`. */
export function postItems(ids: string[], from = 0): FeedItem[] {
  return ids.map((id, i) => ({
    id,
    title: `Post ${id}`,
    link: `https://example.org/${id}`,
    minute: from + i,
  }));
}

export interface FeedServer {
  /** Absolute URL of a path on this server. */
  url(path: string): string;
  /** Serves these items at `path` (oldest first; written newest first like most feeds). */
  set(path: string, items: FeedItem[]): void;
  /** Makes `path` answer with this HTTP status. */
  fail(path: string, status: number): void;
  /** Requests received for `path`. */
  hits(path: string): number;
  close(): Promise<void>;
}

const escapeXml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** An RSS 2.0 document for the items. */
export function rss(title: string, items: FeedItem[]): string {
  const body = [...items].reverse().map((item) => {
    const date = new Date(Date.UTC(2024, 0, 1, 0, item.minute ?? 0)).toUTCString();
    return `<item><title>${escapeXml(item.title)}</title>` +
      (item.link ? `<link>${escapeXml(item.link)}</link>` : "") +
      `<guid isPermaLink="false">${escapeXml(item.id)}</guid><pubDate>${date}</pubDate>` +
      (item.categories ?? []).map((c) => `<category>${escapeXml(c)}</category>`).join("") +
      (item.summary === undefined ? "" : `<description>${escapeXml(item.summary)}</description>`) +
      "</item>";
  }).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>${escapeXml(title)}</title><link>https://example.org/</link>
<description>test feed</description>
${body}
</channel></rss>
`;
}

export function startFeedServer(): FeedServer {
  const feeds = new Map<string, { body: string; etag: string } | { status: number }>();
  const hits = new Map<string, number>();
  let version = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      const path = new URL(request.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const feed = feeds.get(path);
      if (!feed) return new Response("not found", { status: 404 });
      if ("status" in feed) return new Response("failure", { status: feed.status });
      if (request.headers.get("if-none-match") === feed.etag) {
        return new Response(null, { status: 304, headers: { etag: feed.etag } });
      }
      return new Response(feed.body, {
        headers: { "content-type": "application/rss+xml; charset=utf-8", etag: feed.etag },
      });
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    url: (path) => `${base}${path}`,
    set(path, items) {
      feeds.set(path, { body: rss(path, items), etag: `"v${++version}"` });
    },
    fail(path, status) {
      feeds.set(path, { status });
    },
    hits: (path) => hits.get(path) ?? 0,
    close: () => server.shutdown(),
  };
}
