/**
 * `deno task demo`: courier's main job with no token and no network. Serves the demo feeds on
 * 127.0.0.1 (a free port), writes a config for them in a temporary directory, and runs
 * `courier forward --dry-run` on it until Ctrl-C, then removes what it made.
 *
 * courier runs as a child in its own process group, and the demo passes it exactly one SIGINT:
 * a terminal's Ctrl-C reaches every process of the foreground group and `deno task` passes it
 * on once more, and courier takes a second signal as "exit at once".
 */
import { dump as stringify } from "js-yaml";
import { serveDemoFeeds } from "./server.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
/** How long the runs under way may take after Ctrl-C (all local: far less). */
const GRACE_S = 5;

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
  let child: Deno.ChildProcess | null = null;
  let stopAsked = false;
  const stop = () => {
    if (stopAsked) return;
    stopAsked = true;
    try {
      child?.kill("SIGINT");
    } catch { /* already gone */ }
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  try {
    const config = `${dir}/config.yml`;
    await Deno.writeTextFile(config, demoConfig(server.base, `${dir}/data`));
    console.log(
      `courier demo: forwarding two sample feeds from ${server.base} every minute, as a dry run ` +
        `(each message is printed, not sent; config at ${config}).`,
    );
    console.log("First the catch-up, then a new story each minute. Press Ctrl-C to stop.\n");
    // Warnings and errors only: the messages are the show.
    const args = ["forward", "--dry-run", "--log-level", "warn", "--grace", String(GRACE_S)];
    child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--quiet", MAIN, ...args, "-c", config],
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
      detached: true,
    }).spawn();
    // A Ctrl-C that came while it was starting.
    if (stopAsked) child.kill("SIGINT");
    const status = await child.status;
    // Stopped as asked: a clean stop (0), or one that came before courier listened for it.
    if (stopAsked && (status.code === 0 || status.signal === "SIGINT")) return 0;
    return status.code;
  } finally {
    // The listeners stay until the process exits: `deno task` passes a Ctrl-C on once more,
    // late on a busy machine, and without them that copy ended the demo mid-cleanup (130).
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
    console.log(`\ncourier demo: stopped; removed ${dir}.`);
  }
}

if (import.meta.main) {
  Deno.exit(await runDemo());
}
