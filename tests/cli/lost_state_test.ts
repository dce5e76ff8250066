/**
 * A state database that is new or empty beside a last-success file that lists feeds: the
 * state was lost or moved (courier.db copied without its -wal file, a db_dir that changed).
 * `once` and `forward` say so in one warning line naming both files, and take those feeds as
 * first sightings (their own first_time_limit, none sent without one) instead of posting every
 * entry again. The real CLI, a real feed server and the fake Bot API.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { stateRows } from "../support/state_rows.ts";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";
import { type FakeBotApi, startFakeBotApi } from "../support/fake_bot_api.ts";
import { type FeedServer, postItems, startFeedServer } from "../support/once_feeds.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const TOKEN = "123456:TEST-token_abc";

const items = postItems;

interface Env {
  dir: string;
  data: string;
  db: string;
  lastSuccess: string;
  feeds: FeedServer;
  bot: FakeBotApi;
  config: string;
}

async function withEnv(fn: (env: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const data = `${dir}/data`;
  const config = `${dir}/config.yml`;
  // "plain" has no first-sighting limit (the top-level default -1), "limited" its own 2.
  await Deno.writeTextFile(
    config,
    stringify({
      messenger_auth_token: TOKEN,
      data_dir: data,
      feeds: [
        { name: "plain", channel: "@plain_chan", url: feeds.url("/plain.xml") },
        {
          name: "limited",
          channel: "@limited_chan",
          url: feeds.url("/limited.xml"),
          first_time_limit: 2,
        },
      ].map((f) => ({ ...f, cron: "* * * * *", type: "rss" })),
    }),
  );
  try {
    await fn({
      dir,
      data,
      db: `${data}/feed_data/courier.db`,
      lastSuccess: `${data}/last_success.yml`,
      feeds,
      bot,
      config,
    });
  } finally {
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const bolds = (bot: FakeBotApi, chat: string) => bot.messages(chat).map((m) => m.bold[0]);

function once(env: Env) {
  return runCli(["once", "-c", env.config, "--messenger-api", env.bot.url], { cwd: env.dir });
}

/** The one warning line about lost state, checked for naming both files. */
function assertLostStateLine(env: Env, stderr: string, state: string) {
  const lines = stderr.split("\n").filter((l) => l.includes("state lost or moved"));
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0], /\blevel=warn\b/);
  assert.ok(
    lines[0].includes(
      `state lost or moved: ${env.db} is ${state} but ${env.lastSuccess} lists 2 feeds that ` +
        "succeeded before; they are treated as first sightings: only the newest first_time_limit " +
        "entries are sent (none without a limit)",
    ),
    lines[0],
  );
}

Deno.test("once: a lost database beside a last-success file does not post everything again", () =>
  withEnv(async (env) => {
    env.feeds.set("/plain.xml", items(["p1", "p2", "p3"]));
    env.feeds.set("/limited.xml", items(["l1", "l2", "l3", "l4"]));
    const first = await once(env);
    assert.equal(first.code, 0, first.stderr);
    assert.doesNotMatch(first.stderr, /state lost/, "a first run with no last-success file");
    assert.deepEqual(bolds(env.bot, "@plain_chan"), ["Post p1", "Post p2", "Post p3"]);
    assert.deepEqual(bolds(env.bot, "@limited_chan"), ["Post l3", "Post l4"]);

    // The state is lost (the database and its WAL gone), the last-success file stays; each
    // feed has one new entry meanwhile.
    for (const suffix of ["", "-wal", "-shm"]) await Deno.remove(env.db + suffix).catch(() => {});
    env.feeds.set("/plain.xml", items(["p1", "p2", "p3", "p4"]));
    env.feeds.set("/limited.xml", items(["l1", "l2", "l3", "l4", "l5"]));
    const lost = await once(env);
    assert.equal(lost.code, 0, lost.stderr);
    assertLostStateLine(env, lost.stderr, "new or empty");
    // First sightings: "plain" (no limit of its own) sends none, "limited" its newest 2.
    assert.deepEqual(bolds(env.bot, "@plain_chan"), ["Post p1", "Post p2", "Post p3"]);
    assert.deepEqual(bolds(env.bot, "@limited_chan"), ["Post l3", "Post l4", "Post l4", "Post l5"]);
    assert.match(lost.stdout, /^plain\s+4\s+0\s+0\s+0$/m);
    assert.match(lost.stdout, /^limited\s+5\s+2\s+2\s+0$/m);

    // Recorded: the next run warns no more and sends only what is new.
    env.feeds.set("/plain.xml", items(["p1", "p2", "p3", "p4", "p5"]));
    const after = await once(env);
    assert.equal(after.code, 0, after.stderr);
    assert.doesNotMatch(after.stderr, /state lost|no record of a feed/);
    assert.deepEqual(bolds(env.bot, "@plain_chan"), ["Post p1", "Post p2", "Post p3", "Post p5"]);
    assert.equal(bolds(env.bot, "@limited_chan").length, 4);
  }));

Deno.test("once: a database that still knows the feeds gets no warning and sends what is new", () =>
  withEnv(async (env) => {
    env.feeds.set("/plain.xml", items(["p1"]));
    env.feeds.set("/limited.xml", items(["l1"]));
    assert.equal((await once(env)).code, 0);
    env.feeds.set("/plain.xml", items(["p1", "p2"]));
    const r = await once(env);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /state lost|no record of a feed/);
    assert.deepEqual(bolds(env.bot, "@plain_chan"), ["Post p1", "Post p2"]);
  }));

Deno.test("forward: a moved db_dir beside the last-success file takes its feeds as first sightings", () =>
  withEnv(async (env) => {
    env.feeds.set("/plain.xml", items(["p1", "p2", "p3"]));
    env.feeds.set("/limited.xml", items(["l1", "l2", "l3", "l4"]));
    // The state of an earlier install: a last-success file listing both feeds, long ago (so
    // both catch up at start), and no database where the config now points.
    await Deno.mkdir(env.data, { recursive: true });
    await Deno.writeTextFile(
      env.lastSuccess,
      '"plain": 2024-01-01T00:00:00Z\n"limited": 2024-01-01T00:00:00Z\n',
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        MAIN,
        "forward",
        "-c",
        env.config,
        "--messenger-api",
        env.bot.url,
      ],
      cwd: env.dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const drained = (async () => {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) stderr += text;
    })();
    try {
      // Both feeds' catch-up runs are done once each has logged its first sighting and, for
      // the limited one, its two messages are in.
      for (let i = 0; i < 2000; i++) {
        const sightings = stderr.split("\n").filter((l) => l.includes("no record of a feed"));
        if (sightings.length === 2 && env.bot.messages().length >= 2) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill("SIGTERM");
      assert.equal((await child.status).code, 0);
      await drained;
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
    }
    assertLostStateLine(env, stderr, "new or empty");
    assert.deepEqual(bolds(env.bot, "@plain_chan"), []);
    assert.deepEqual(bolds(env.bot, "@limited_chan"), ["Post l3", "Post l4"]);
    assert.match(
      stderr,
      /level=warn msg="the state has no record of a feed.* feed=plain .*sent=0 skipped=3/,
    );
    assert.match(stderr, /feed=limited .*sent=2 skipped=2/);
  }));

/** The database's last-success rows, feed → time. */
function recordedSuccesses(db: string): Record<string, string> {
  const rows = stateRows(db, "SELECT feed, at FROM last_success ORDER BY feed");
  return Object.fromEntries(rows.map((r) => [String(r.feed), String(r.at)]));
}

Deno.test("once: the database keeps the last successes; a state from before it did gets the file's", () =>
  withEnv(async (env) => {
    env.feeds.set("/plain.xml", items(["p1"]));
    env.feeds.set("/limited.xml", items(["l1"]));
    assert.equal((await once(env)).code, 0);
    const first = recordedSuccesses(env.db);
    assert.deepEqual(Object.keys(first), ["limited", "plain"]);
    // The file is a copy of the database's record, to the second.
    const copy = await Deno.readTextFile(env.lastSuccess);
    for (const [feed, at] of Object.entries(first)) {
      assert.ok(copy.includes(`"${feed}": ${at.replace(/\.\d{3}Z$/, "Z")}\n`), copy);
    }

    // A state written before the database kept them: no rows, the file alone. A run of one
    // feed copies the file's times in, so the other keeps its time for forward's catch-up.
    const sqlite = new DatabaseSync(env.db);
    sqlite.exec("DELETE FROM last_success");
    sqlite.close();
    await Deno.writeTextFile(
      env.lastSuccess,
      '"plain": 2024-01-01T00:00:00Z\n"limited": 2024-01-02T00:00:00Z\n',
    );
    const r = await runCli(
      ["once", "-c", env.config, "--messenger-api", env.bot.url, "--feed", "plain"],
      { cwd: env.dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /state lost|no record of a feed|unreadable/);
    const imported = recordedSuccesses(env.db);
    assert.equal(imported.limited, "2024-01-02T00:00:00.000Z");
    assert.ok(imported.plain > first.plain, "plain's own run is newer");

    // The database is authoritative: a garbled copy is not read, and is written whole again.
    await Deno.writeTextFile(env.lastSuccess, '"plain": [oops\n');
    const again = await once(env);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /last-success/);
    const rewritten = await Deno.readTextFile(env.lastSuccess);
    const expected = Object.entries(recordedSuccesses(env.db))
      .map(([feed, at]) => `"${feed}": ${at.replace(/\.\d{3}Z$/, "Z")}\n`);
    assert.deepEqual(rewritten.split(/(?<=\n)/).sort(), expected.sort());
  }));
