/**
 * `deno task demo`: courier's main job with no token and no network. Serves the demo feeds on
 * 127.0.0.1 (a free port), writes a config for them in a temporary directory, and runs
 * `courier forward --dry-run` on it in this process, so one Ctrl-C reaches the forward loop
 * (which stops cleanly) and the demo then removes what it made.
 */
import { stringify } from "yaml";
import { main } from "../cli/main.ts";
import { serveDemoFeeds } from "./server.ts";

/** The demo config: two feeds checked every minute, one merging two URLs, one with Instant View. */
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
        cron: "* * * * *",
        type: "rss",
        title: "Read the story",
        first_time_limit: 4,
      },
      {
        name: "demo-blog",
        channel: "@courier_demo_blog",
        url: `${base}/blog.atom`,
        cron: "* * * * *",
        type: "atom",
        rhash: "demo1234",
      },
    ],
  });
}

export async function runDemo(): Promise<number> {
  const server = serveDemoFeeds();
  const dir = await Deno.makeTempDir({ prefix: "courier-demo-" });
  let done = false;
  // Runs once, whichever way the demo ends: a clean stop, or Deno.exit (a second Ctrl-C).
  const cleanUp = () => {
    if (done) return;
    done = true;
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* already gone */ }
    console.log(`\ncourier demo: stopped; removed ${dir}.`);
  };
  globalThis.addEventListener("unload", cleanUp);
  // Until the loop fetches a feed it may not be listening to Ctrl-C yet; a Ctrl-C then ends
  // the demo here rather than by the signal's default action, which would leave the directory.
  const earlyStop = () => {
    if (!server.asked) Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", earlyStop);
  try {
    const config = `${dir}/config.yml`;
    await Deno.writeTextFile(config, demoConfig(server.base, `${dir}/data`));
    console.log(
      `courier demo: forwarding two sample feeds from ${server.base} every minute, as a dry run ` +
        `(each message is printed, not sent; config at ${config}).`,
    );
    console.log("First the catch-up, then a new story each minute. Press Ctrl-C to stop.\n");
    // Warnings and errors only: the messages are the show.
    return await main(["forward", "--dry-run", "--log-level", "warn", "-c", config]);
  } finally {
    Deno.removeSignalListener("SIGINT", earlyStop);
    await server.shutdown();
    cleanUp();
    globalThis.removeEventListener("unload", cleanUp);
  }
}

if (import.meta.main) {
  Deno.exit(await runDemo());
}
