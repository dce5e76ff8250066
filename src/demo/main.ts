/**
 * `deno task demo`: courier at work with no token and no network. Serves a few fixture feeds on
 * 127.0.0.1 (a free port), writes a config for them in a temporary directory, and runs
 * `courier once --dry-run` on it, which prints every message it would post.
 */
import { stringify } from "yaml";
import { BLOG_ATOM, NEWS_MIRROR_RSS, NEWS_RSS } from "./fixtures.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

const ROUTES: Record<string, { body: string; type: string }> = {
  "/news.xml": { body: NEWS_RSS, type: "application/rss+xml; charset=utf-8" },
  "/news-mirror.xml": { body: NEWS_MIRROR_RSS, type: "application/rss+xml; charset=utf-8" },
  "/blog.atom": { body: BLOG_ATOM, type: "application/atom+xml; charset=utf-8" },
};

/** Serves the fixture feeds; resolves to the server and its base URL. */
export function serveDemoFeeds() {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const route = ROUTES[new URL(request.url).pathname];
    return route
      ? new Response(route.body, { headers: { "content-type": route.type } })
      : new Response("not found", { status: 404 });
  });
  return { server, base: `http://127.0.0.1:${server.addr.port}` };
}

/** The demo config: two feeds, one merging two URLs, one with Instant View. */
export function demoConfig(base: string, dataDir: string): string {
  return stringify({
    // A placeholder: a dry run never talks to the messenger.
    messenger_auth_token: "123456:demo-token-never-used",
    data_dir: dataDir,
    first_time_limit: -1,
    feeds: [
      {
        name: "demo-news",
        channel: "@courier_demo",
        url: [`${base}/news.xml`, `${base}/news-mirror.xml`],
        cron: "*/10 * * * *",
        type: "rss",
        title: "Read the story",
        first_time_limit: 4,
      },
      {
        name: "demo-blog",
        channel: "@courier_demo_blog",
        url: `${base}/blog.atom`,
        cron: "0 * * * *",
        type: "atom",
        rhash: "demo1234",
      },
    ],
  });
}

export async function runDemo(): Promise<number> {
  const { server, base } = serveDemoFeeds();
  const dir = await Deno.makeTempDir({ prefix: "courier-demo-" });
  try {
    const config = `${dir}/config.yml`;
    await Deno.writeTextFile(config, demoConfig(base, `${dir}/data`));
    console.log(`courier demo: feeds served at ${base}, config at ${config}`);
    console.log(`running: courier once --dry-run -c ${config}\n`);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--quiet", MAIN, "once", "--dry-run", "-c", config],
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    const { code } = await child.status;
    return code;
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  Deno.exit(await runDemo());
}
