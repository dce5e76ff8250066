/**
 * README.md as a new user meets it: short enough to read, tables that fit a screen, and a quick
 * start that runs as written. The quick start's shell block is run by bash exactly as printed,
 * with `courier` being the alias the README's "From source" line puts in ~/.bashrc, against the
 * test Bot API (tests/support/fake_bot_api.ts, accepting the README's own example token) and a
 * local feed. What the test changes, and only that: the feed's URL (tests never touch the
 * internet), $HOME (a temporary one), and $COURIER_MESSENGER_API (the Bot API's address).
 */
import { bounded, type Deadline } from "./support/deadline.ts";
import { assert, assertEquals } from "./support/assert.ts";
import { startFakeBotApi } from "./support/fake_bot_api.ts";
import { emulatorProcess } from "./support/telegram_emulator.ts";
import { postItems, startFeedServer } from "./support/once_feeds.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const readme = await Deno.readTextFile(`${ROOT}README.md`);

/** The text of the `## heading` section, up to the next `## `. */
function section(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert(start >= 0, `README has a "## ${heading}" section`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** The fenced blocks of one language in a piece of Markdown. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].map((
    m,
  ) => m[1]);
}

Deno.test("README: under 400 lines, no table line over 120 characters", () => {
  const lines = readme.split("\n");
  assert(lines.length < 400, `README has ${lines.length} lines`);
  const wide = lines.filter((l) => l.startsWith("|") && l.length > 120);
  assertEquals(wide, []);
});

Deno.test("README: the two set-up commands for anyone who clones stay at the top", () => {
  const first = blocks(readme, "sh")[0];
  assert(readme.indexOf(first) < readme.indexOf("\n## "), "before the first section");
  assert(first.includes("deno task demo"), first);
  assert(first.includes("bash .ci/peers.sh && deno task test"), first);
});

Deno.test("README: placeholders are named once, each in one shell variable", () => {
  // The repository, the token and the channel: assigned once, then only used as variables.
  for (const name of ["REPO", "TOKEN", "CHANNEL"]) {
    const assignments = [...readme.matchAll(new RegExp(`^${name}=`, "gm"))];
    assertEquals(assignments.length, 1, `${name}= assigned once`);
  }
  assert(!readme.includes("OWNER"), "no OWNER placeholder");
  // The example token is written once, where TOKEN is set; every command uses $TOKEN.
  assertEquals(readme.split("123456789:AAH-your-token").length, 2);
});

interface QuickStart {
  token: string;
  channel: string;
  /** Runs the block in a fresh $HOME, the feed at `feedUrl`, the Bot API at `api`. */
  run(feedUrl: string, api: string, deadline: Deadline): Promise<Ran>;
}

interface Ran {
  stdout: string;
  stderr: string;
  home: string;
}

/** The quick start's one block, and the From-source alias it relies on for `courier`. */
function quickStart(): QuickStart {
  const quick = blocks(section("Quick start"), "sh");
  assertEquals(quick.length, 1, "one block to paste");
  const token = /^TOKEN='([^']+)'/m.exec(quick[0])?.[1];
  const channel = /^CHANNEL='([^']+)'/m.exec(quick[0])?.[1];
  assert(token && channel, "the block names the token and the channel first");
  const alias = blocks(section("Install"), "sh").join("\n").split("\n")
    .find((line) => line.startsWith(`echo "alias courier=`));
  assert(alias, "Install gives a `courier` alias for running from source");
  const realFeed = "https://deno.com/feed";
  assertEquals(quick[0].split(realFeed).length, 2, "the feed URL appears once");
  return {
    token,
    channel,
    async run(feedUrl, api, deadline) {
      const home = await Deno.makeTempDir({ prefix: "courier-readme-" });
      const script = [
        "set -euo pipefail",
        `cd ${JSON.stringify(ROOT)}`,
        alias, // run in the clone, as the README says
        "cd ~",
        "shopt -s expand_aliases",
        "source ~/.bashrc",
        quick[0].replace(realFeed, feedUrl),
      ].join("\n");
      await Deno.writeTextFile(`${home}/quickstart.sh`, script);
      const child = new Deno.Command("bash", {
        args: [`${home}/quickstart.sh`],
        clearEnv: true,
        env: {
          HOME: home,
          PATH: `${Deno.execPath().replace(/\/[^/]*$/, "")}:/usr/local/bin:/usr/bin:/bin`,
          DENO_DIR: Deno.env.get("DENO_DIR") ?? await defaultDenoDir(),
          NO_COLOR: "1",
          COURIER_MESSENGER_API: api,
        },
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const out = await deadline.within("the quick start", child.output());
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 0, `${stdout}\n${stderr}`);
      for (const text of [stdout, stderr]) assert(!text.includes(token), "the token never shows");
      return { stdout, stderr, home };
    },
  };
}

Deno.test(
  "README quick start: its commands run as written and post the newest 3 entries, once",
  bounded(60_000, async (deadline) => {
    const qs = quickStart();
    const feeds = startFeedServer();
    const bot = await startFakeBotApi({ token: qs.token, limits: null });
    let home = "";
    try {
      feeds.set("/feed", postItems(["a", "b", "c", "d", "e"]));
      const ran = await qs.run(feeds.url("/feed"), bot.url, deadline);
      home = ran.home;
      // The dry run printed them; `once` posted the newest 3, oldest first; the second `once`
      // and the dry run posted nothing (else there would be more than 3).
      assertEquals(bot.messages().map((m) => [m.chatId, m.bold[0]]), [
        [qs.channel, "Post c"],
        [qs.channel, "Post d"],
        [qs.channel, "Post e"],
      ]);
      for (const title of ["Post c", "Post d", "Post e"]) {
        assert(ran.stdout.includes(title), title);
      }
      assert(!ran.stdout.includes("Post b"), "the backlog beyond first_time_limit is not shown");
      assert(/deno-blog/.test(ran.stdout), "status names the feed");
      // The state is beside the config, and the token file is the user's alone.
      await Deno.stat(`${home}/courier/feed_data/courier.db`);
      assertEquals((await Deno.stat(`${home}/courier/messenger_auth_token`)).mode! & 0o777, 0o600);
    } finally {
      await feeds.close();
      await bot.close();
      if (home) await Deno.remove(home, { recursive: true });
    }
  }),
);

Deno.test(
  "README quick start: the second opinion, npm's telegram-test-api, stores the same 3 posts",
  bounded(60_000, async (deadline) => {
    const qs = quickStart();
    const emulator = emulatorProcess("serve.ts", "piped");
    const lines = lineReader(emulator.stdout);
    const feeds = startFeedServer();
    let home = "";
    try {
      const first = await deadline.within("the emulator listening", lines.next());
      const { url } = JSON.parse(first ?? "{}");
      assert(url, "the emulator says where it listens");
      feeds.set("/feed", postItems(["a", "b", "c", "d", "e"]));
      home = (await qs.run(feeds.url("/feed"), url, deadline)).home;
      await emulator.stdin.close();
      const stored = JSON.parse(
        (await deadline.within("the emulator's messages", lines.next())) ?? "null",
      ) as { chat_id: string; text: string; parse_mode: string }[];
      assertEquals(
        stored.map((m) => [m.chat_id, m.parse_mode, /<b>(.*?)<\/b>/.exec(m.text)?.[1]]),
        [
          [qs.channel, "HTML", "Post c"],
          [qs.channel, "HTML", "Post d"],
          [qs.channel, "HTML", "Post e"],
        ],
      );
      assertEquals((await deadline.within("the emulator's end", emulator.status)).code, 0);
    } finally {
      try {
        emulator.kill("SIGKILL");
      } catch {
        // it has ended
      }
      await lines.cancel().catch(() => {});
      await emulator.stderr.cancel().catch(() => {});
      await feeds.close();
      if (home) await Deno.remove(home, { recursive: true });
    }
  }),
);

/** The lines of a byte stream, one at a time (null at its end). */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async next(): Promise<string | null> {
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) return buffered === "" ? null : buffered;
        buffered += value;
      }
      const line = buffered.slice(0, buffered.indexOf("\n"));
      buffered = buffered.slice(line.length + 1);
      return line;
    },
    cancel: () => reader.cancel(),
  };
}

/** Deno's cache directory as this process uses it: the README's commands must share it. */
async function defaultDenoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}
