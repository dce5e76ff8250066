/**
 * The demo's feed server on 127.0.0.1 (a free port). The news feed grows by one story a minute,
 * counted from the minute of its first request: the catch-up at start sees the fixed stories,
 * and the run at each later minute boundary finds exactly one new one, whatever second the
 * demo was started at.
 */
import { BLOG_ATOM, liveStory, NEWS_MIRROR_RSS, NEWS_RSS } from "./fixtures.ts";

const RSS = "application/rss+xml; charset=utf-8";
const ATOM = "application/atom+xml; charset=utf-8";
const MINUTE = 60_000;

export interface DemoServer {
  /** http://127.0.0.1:PORT */
  base: string;
  shutdown(): Promise<void>;
}

/** The news feed with one live story for each minute boundary since `firstMinute`. */
function newsWithLiveStories(firstMinute: number, nowMinute: number): string {
  const live: string[] = [];
  // Newest first, as feeds are written.
  for (let minute = nowMinute; minute > firstMinute; minute--) live.push(liveStory(minute));
  return NEWS_RSS.replace("<item>", `${live.join("")}<item>`);
}

/** Serves the demo feeds; `now` is the wall clock (the one the loop's cron follows). */
export function serveDemoFeeds(now: () => number = Date.now): DemoServer {
  let firstNewsMinute: number | null = null;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const reply = (body: string, type: string) =>
      new Response(body, { headers: { "content-type": type, "cache-control": "no-store" } });
    switch (new URL(request.url).pathname) {
      case "/news.xml": {
        const minute = Math.floor(now() / MINUTE);
        firstNewsMinute ??= minute;
        return reply(newsWithLiveStories(firstNewsMinute, minute), RSS);
      }
      case "/news-mirror.xml":
        return reply(NEWS_MIRROR_RSS, RSS);
      case "/blog.atom":
        return reply(BLOG_ATOM, ATOM);
    }
    return new Response("not found", { status: 404 });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    shutdown: () => server.shutdown(),
  };
}
