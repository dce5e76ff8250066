/**
 * `courier once` as cron runs it: stdout and stderr captured, as cron mails them. A run with
 * nothing new and nothing failed writes nothing at all; news or trouble writes the table.
 * On a terminal (a real pty from `script`), the progress line never shares a line with a log
 * line.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";
import { requireTool } from "../support/tools.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { postItems, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_cron";
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function withFeeds(
  fn: (env: {
    dir: string;
    config: string;
    once: (...args: string[]) => ReturnType<typeof runCli>;
    feeds: ReturnType<typeof startFeedServer>;
    botUrl: string;
  }) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const config = `${dir}/config.yml`;
  const feed = (name: string) => ({
    name,
    channel: "@news_chan",
    url: feeds.url(`/${name}.xml`),
    cron: "*/10 * * * *",
    type: "rss",
  });
  await Deno.writeTextFile(
    config,
    stringify({
      messenger_auth_token: TOKEN,
      data_dir: `${dir}/data`,
      feeds: [feed("news"), feed("blog")],
    }),
  );
  try {
    await fn({
      dir,
      config,
      feeds,
      botUrl: bot.url,
      // cron's environment: no terminal, and whatever directory cron starts in.
      once: (...args) =>
        runCli(["once", "-c", config, "--messenger-api", bot.url, ...args], { cwd: "/" }),
    });
  } finally {
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("once from cron: news prints the table, nothing new prints nothing, trouble prints both", () =>
  withFeeds(async ({ once, feeds }) => {
    feeds.set("/news.xml", postItems(["a", "b"]));
    feeds.set("/blog.xml", postItems(["x"]));
    const news = await once();
    assert.equal(news.code, 0, news.stderr);
    assert.match(news.stdout, /^news\s+2\s+2\s+2\s+0$/m);
    assert.equal(news.stderr, "");

    // The crontab line's run when nothing changed: no mail.
    const quiet = await once();
    assert.deepEqual([quiet.code, quiet.stdout, quiet.stderr], [0, "", ""]);

    // --summary asks for the table anyway.
    const asked = await once("--summary");
    assert.equal(asked.code, 0);
    assert.match(asked.stdout, /^news\s+0\s+0\s+0\s+0$/m); // not modified: nothing fetched
    assert.match(asked.stdout, /2 feeds: 2 ok, 0 failed; 0 sent/);

    // A failing feed is trouble: the table and the error line, exit 1.
    feeds.fail("/blog.xml", 500);
    const trouble = await once();
    assert.equal(trouble.code, 1);
    assert.match(trouble.stdout, /^blog\s+0\s+0\s+0\s+0\s+.*500/m);
    assert.match(trouble.stderr, /level=error msg="feed failed" feed=blog/);

    // One new entry: the table again.
    feeds.set("/blog.xml", postItems(["x", "y"]));
    const more = await once();
    assert.equal(more.code, 0, more.stderr);
    assert.match(more.stdout, /^blog\s+2\s+1\s+1\s+0$/m);
  }));

/** What a terminal shows for the text: `\r` returns to the line start, `ESC[K` erases to its end. */
function screenLines(text: string): string[] {
  const lines: string[] = [];
  for (const raw of text.replaceAll("\r\n", "\n").split("\n")) {
    let line = "";
    let column = 0;
    // deno-lint-ignore no-control-regex -- terminal control sequences are what it reads
    for (const token of raw.split(/(\r|\x1b\[K)/)) {
      if (token === "\r") column = 0;
      else if (token === "\x1b[K") line = line.slice(0, column);
      else {
        line = line.slice(0, column) + token + line.slice(column + token.length);
        column += token.length;
      }
    }
    lines.push(line);
  }
  return lines;
}

Deno.test("once on a terminal: the progress line is cleared before each log line", async () => {
  if (!(await requireTool("script", "the terminal test"))) return;
  await withFeeds(async ({ config, feeds, botUrl }) => {
    feeds.set("/news.xml", postItems(["a", "b", "c"]));
    feeds.fail("/blog.xml", 503);
    const command = [Deno.execPath(), "run", "-A", "--quiet", MAIN, "once", "-c", config]
      .concat(["--messenger-api", botUrl, "--concurrency", "1"])
      .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
    // `script` runs the command on a new pseudo-terminal and copies what it shows to stdout.
    const out = await new Deno.Command("script", {
      args: ["-q", "-e", "-c", command, "/dev/null"],
      env: { NO_COLOR: "1", TERM: "dumb" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 1, text);
    assert.match(text, /courier once: \d\/2 feeds done/, "the progress line was drawn");
    const lines = screenLines(text);
    const logLines = lines.filter((l) => l.includes("level="));
    assert.ok(logLines.length >= 1, text);
    for (const line of logLines) {
      assert.match(line, /^time=\S+ level=\w+ msg=/, `a log line starts its own line: ${line}`);
      assert.ok(!line.includes("feeds done"), `shares a line with the progress: ${line}`);
    }
  });
});
