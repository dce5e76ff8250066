/**
 * `courier once` when the state database fails under it: a disk that fills up mid-run, and a
 * courier.db that is garbage or truncated. The real CLI, a real feed server, the fake Bot API,
 * and real failures of the file system or the file (no mock of the database).
 *
 * The full disk is a real one: a 1 MiB tmpfs mounted over the data directory, filled by the
 * fake Bot API the moment it accepts the run's first message, so the write that records that
 * message meets ENOSPC, which SQLite reports as SQLITE_FULL. Mounting needs root (or
 * CAP_SYS_ADMIN); where `mount` is refused the test is ignored. A file size limit
 * (`prlimit --fsize`, RLIMIT_FSIZE) was the other candidate: it applies to every file the
 * process writes, Deno's own caches included (a child under a small limit dies at start-up
 * from SIGXFSZ), so the limit cannot be aimed at the database alone.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";
import { type FakeBotApi, startFakeBotApi } from "../support/fake_bot_api.ts";
import { type FeedServer, postItems, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";

const items = postItems;

function feed(name: string, url: string, channel: string) {
  return { name, channel, url, cron: "*/5 * * * *", type: "rss" };
}

async function run(command: string, args: string[]): Promise<{ code: number; err: string }> {
  const out = await new Deno.Command(command, { args, stdout: "null", stderr: "piped" }).output();
  return { code: out.code, err: new TextDecoder().decode(out.stderr).trim() };
}

/** Whether this process may mount a tmpfs (root in most containers, not a plain user). */
async function canMountTmpfs(): Promise<boolean> {
  const dir = await Deno.makeTempDir();
  try {
    if ((await run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir])).code !== 0) {
      return false;
    }
    return (await run("umount", [dir])).code === 0;
  } catch {
    return false; // no mount(8) at all
  } finally {
    await Deno.remove(dir).catch(() => {});
  }
}

const MOUNT = await canMountTmpfs();

/** Writes into `dir` until its file system has no room left; returns the filler's path. */
function fillUp(dir: string): string {
  const path = `${dir}/filler`;
  const file = Deno.openSync(path, { write: true, create: true });
  const chunk = new Uint8Array(4096);
  try {
    for (;;) file.writeSync(chunk);
  } catch (error) {
    // The only way out: the file system is full.
    if (!String((error as Error).message).includes("No space left")) throw error;
  } finally {
    file.close();
  }
  return path;
}

interface Env {
  dir: string;
  data: string;
  feeds: FeedServer;
  bot: FakeBotApi;
  once(): Promise<{ code: number; stdout: string; stderr: string }>;
}

async function withEnv(
  fn: (env: Env) => Promise<void>,
  options: {
    tmpfs?: boolean;
    onFirstMessage?: (env: Env) => void;
    config?: Record<string, unknown>;
  } = {},
) {
  const dir = await Deno.makeTempDir();
  const data = `${dir}/data`;
  await Deno.mkdir(data);
  let mounted = false;
  const feeds = startFeedServer();
  let env: Env | undefined;
  let first = true;
  const bot = await startFakeBotApi({
    token: TOKEN,
    limits: null,
    onMessage: () => {
      if (first && env) options.onFirstMessage?.(env);
      first = false;
    },
  });
  try {
    if (options.tmpfs) {
      const m = await run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", data]);
      assert.equal(m.code, 0, m.err);
      mounted = true;
    }
    const config = `${dir}/config.yml`;
    feeds.set("/a.xml", items(["a1", "a2", "a3"]));
    feeds.set("/b.xml", items(["b1", "b2", "b3"]));
    await Deno.writeTextFile(
      config,
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: data,
        ...options.config,
        feeds: [
          feed("alpha", feeds.url("/a.xml"), "@alpha_chan"),
          feed("beta", feeds.url("/b.xml"), "@beta_chan"),
        ],
      }),
    );
    env = {
      dir,
      data,
      feeds,
      bot,
      once: () => runCli(["once", "-c", config, "--messenger-api", bot.url], { cwd: dir }),
    };
    await fn(env);
  } finally {
    await feeds.close();
    await bot.close();
    if (mounted) {
      const u = await run("umount", [data]);
      assert.equal(u.code, 0, u.err);
    }
    await Deno.remove(dir, { recursive: true });
  }
}

function assertNoStack(text: string) {
  assert.doesNotMatch(text, /^\s+at /m, `a stack trace:\n${text}`);
  assert.doesNotMatch(text, /internal error/, text);
}

const bolds = (bot: FakeBotApi, chat: string) => bot.messages(chat).map((m) => m.bold[0]);

Deno.test({
  name: "once: a disk that fills up mid-run: the error names the file and the step, " +
    "the summary counts what went out, the next run re-sends only that message",
  ignore: !MOUNT,
  fn: () => {
    let filler = "";
    return withEnv(async (env) => {
      const db = `${env.data}/feed_data/courier.db`;
      const r = await env.once();
      assert.equal(r.code, 1, r.stderr);
      assertNoStack(r.stdout + r.stderr);
      // Each feed's first message went out (the messenger accepted it), and could not be
      // recorded: the feed stops there, its other entries kept for the next run.
      assert.deepEqual(bolds(env.bot, "@alpha_chan"), ["Post a1"]);
      assert.deepEqual(bolds(env.bot, "@beta_chan"), ["Post b1"]);
      const error = `cannot record a sent message in ${db}: disk full; 1 message may be sent again`;
      for (const name of ["alpha", "beta"]) {
        const row = r.stdout.split("\n").find((line) => line.startsWith(`${name} `));
        assert.ok(row, r.stdout);
        // feed, fetched, new, sent, failed, error
        assert.match(row, /^\w+\s+3\s+3\s+1\s+2\s+(.*)$/);
        assert.equal(row.replace(/^\w+\s+3\s+3\s+1\s+2\s+/, ""), error);
      }
      assert.match(r.stdout, /^2 feeds: 0 ok, 2 failed; 2 sent$/m);
      // The log says it too, with the step.
      assert.match(r.stderr, /feed failed.*step=record/);
      // The end-of-run checkpoint could not copy the WAL into courier.db either: said, not hidden.
      assert.ok(r.stderr.includes(`cannot checkpoint the WAL in ${db}: disk full`), r.stderr);

      // Room again: the next run sends the two unrecorded messages again, then the rest.
      await Deno.remove(filler);
      const next = await env.once();
      assert.equal(next.code, 0, next.stdout + next.stderr);
      assert.deepEqual(bolds(env.bot, "@alpha_chan"), ["Post a1", "Post a1", "Post a2", "Post a3"]);
      assert.deepEqual(bolds(env.bot, "@beta_chan"), ["Post b1", "Post b1", "Post b2", "Post b3"]);
    }, {
      tmpfs: true,
      onFirstMessage: (env) => filler = fillUp(env.data),
    });
  },
});

Deno.test("once: a courier.db that is not a database is named, exit 1, no stack", () =>
  withEnv(async (env) => {
    await Deno.mkdir(`${env.data}/feed_data`);
    const db = `${env.data}/feed_data/courier.db`;
    await Deno.writeTextFile(db, "this is not a database, just text ".repeat(300));
    const r = await env.once();
    assert.equal(r.code, 1);
    assertNoStack(r.stderr);
    assert.equal(
      r.stderr,
      `courier once: cannot open ${db}: the file is not an SQLite database\n`,
    );
    assert.equal(env.bot.requests, 0, "nothing is sent without a state to record it in");
  }));

Deno.test("once: a truncated courier.db is named as corrupt, exit 1, no stack", () =>
  withEnv(async (env) => {
    // A real state first: enough entries that the file spans many pages (held back at the
    // first sighting, so the pacing of a channel does not make it slow).
    const many = Array.from({ length: 300 }, (_, i) => `a${i}`);
    env.feeds.set("/a.xml", items(many));
    const first = await env.once();
    assert.equal(first.code, 0, first.stderr);
    const db = `${env.data}/feed_data/courier.db`;
    const size = (await Deno.stat(db)).size;
    assert.ok(size >= 16 * 4096, `courier.db is ${size} bytes`);
    // Cut the file in half, as a copy interrupted midway leaves it.
    const file = await Deno.open(db, { write: true });
    await file.truncate(Math.floor(size / 2 / 4096) * 4096);
    file.close();

    const sent = env.bot.requests;
    env.feeds.set("/a.xml", items([...many, "new"]));
    const r = await env.once();
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assertNoStack(r.stdout + r.stderr);
    assert.match(
      r.stdout + r.stderr,
      // Where SQLite first meets a missing page depends on the layout: at the open, or later.
      new RegExp(
        `cannot (open|[a-z ]+ in) ${db.replace(/[.]/g, "\\.")}: ` +
          "the file is corrupt \\(database disk image is malformed\\)",
      ),
    );
    assert.equal(env.bot.requests - sent <= 1, true, "no flood from a half-read state");
  }, { config: { first_time_limit: 1 } }));
