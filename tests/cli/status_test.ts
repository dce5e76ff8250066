import assert from "node:assert/strict";
import { parse, stringify } from "../support/yaml.ts";
import { type CliResult, runCli } from "../support/cli.ts";
import { type FakeBotApi, startFakeBotApi } from "../support/fake_bot_api.ts";
import { type FeedServer, postItems, startFeedServer } from "../support/once_feeds.ts";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";

const TOKEN = "123456:TEST-token_abc";
const ROOT = new URL("../../", import.meta.url).pathname;
const LOCK_MODULE = new URL("../../src/store/lock.ts", import.meta.url).href;

interface Env {
  dir: string;
  config: string;
  feeds: FeedServer;
  bot: FakeBotApi;
  once(): Promise<CliResult>;
  status(...args: string[]): Promise<CliResult>;
  writeConfig(feeds: Record<string, unknown>[]): Promise<void>;
}

function feed(name: string, url: string, cron = "*/5 * * * *") {
  return { name, channel: `@${name}_chan`, url, cron, type: "rss" };
}

const items = postItems;

async function withEnv(fn: (env: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const config = `${dir}/config.yml`;
  const noLeak = (r: CliResult) => {
    for (const text of [r.stdout, r.stderr]) {
      assert.ok(!text.includes("TEST-token"), `token leaked:\n${text}`);
    }
    return r;
  };
  const env: Env = {
    dir,
    config,
    feeds,
    bot,
    async once() {
      return noLeak(await runCli(["once", "-c", config, "--messenger-api", bot.url], { cwd: dir }));
    },
    async status(...args) {
      // Tokyo has no daylight saving: a 09:00 schedule is always 00:00 UTC.
      const env = { TZ: "Asia/Tokyo" };
      return noLeak(await runCli(["status", "-c", config, ...args], { cwd: dir, env }));
    },
    async writeConfig(list) {
      await Deno.writeTextFile(
        config,
        stringify({ messenger_auth_token: TOKEN, data_dir: `${dir}/data`, feeds: list }),
      );
    },
  };
  try {
    await fn(env);
  } finally {
    await feeds.close();
    await bot.close();
  }
}

/** news (sent three), bad (HTTP 500) after a real `once`; then "later" joins the config. */
async function ranOnce(env: Env): Promise<void> {
  env.feeds.set("/news.xml", items(["a", "b", "c"]));
  env.feeds.fail("/bad.xml", 500);
  const ran = [feed("news", env.feeds.url("/news.xml")), feed("bad", env.feeds.url("/bad.xml"))];
  await env.writeConfig(ran);
  const once = await env.once();
  assert.equal(once.code, 1, once.stderr);
  await env.writeConfig([...ran, feed("later", env.feeds.url("/later.xml"), "0 9 * * *")]);
}

interface JsonFeed {
  name: string;
  cron: string;
  next_run: string | null;
  last_success: { time: string; age_seconds: number } | null;
  last_run: {
    started_at: string;
    finished_at: string | null;
    outcome: string;
    error: string | null;
    age_seconds: number;
  } | null;
  sent_total: number;
  sent_24h: number;
  refused_total: number;
  refused_latest: { id: string; title: string; link: string | null; refused_at: string }[];
}

Deno.test("status --json: every feed in config order, from the state a real once wrote", () =>
  withEnv(async (env) => {
    await ranOnce(env);
    const before = Date.now();
    const r = await env.status("--json");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const doc = JSON.parse(r.stdout) as JsonFeed[];
    assert.deepEqual(doc.map((f) => f.name), ["news", "bad", "later"]);
    const [news, bad, later] = doc;

    // The database's record, which the file copies to the second.
    const times = parse(await Deno.readTextFile(`${env.dir}/data/last_success.yml`));
    const second = (time: string) => Math.floor(new Date(time).getTime() / 1000);
    assert.equal(second(news.last_success!.time), second(times.news));
    assert.ok(news.last_success!.age_seconds >= 0);
    assert.equal(news.last_run!.outcome, "ok");
    assert.equal(news.last_run!.error, null);
    assert.ok(news.last_run!.finished_at! >= news.last_run!.started_at);
    assert.equal(news.sent_total, 3);
    assert.equal(news.sent_24h, 3);
    assert.equal(news.cron, "*/5 * * * *");
    const next = new Date(news.next_run!);
    assert.equal(next.getUTCMinutes() % 5, 0);
    assert.equal(next.getUTCSeconds(), 0);
    assert.ok(next.getTime() > before - 1000 && next.getTime() <= Date.now() + 5 * 60_000);

    assert.equal(bad.last_success, null);
    assert.equal(bad.last_run!.outcome, "failed");
    assert.match(bad.last_run!.error!, /bad\.xml.*500/);
    assert.equal(bad.sent_total, 0);

    assert.deepEqual({ ...later, next_run: null }, {
      name: "later",
      cron: "0 9 * * *",
      next_run: null,
      last_success: null,
      last_run: null,
      sent_total: 0,
      sent_24h: 0,
      refused_total: 0,
      refused_latest: [],
      filtered_total: 0,
    });
    // 09:00 in $TZ (Asia/Tokyo), not in UTC.
    assert.match(later.next_run!, /T00:00:00\.000Z$/);
  }));

Deno.test("status: entries the messenger refused in every form, per feed, text and --json", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a", "b", "c"]));
    await env.writeConfig([feed("news", env.feeds.url("/news.xml"))]);
    // Refused for its content in HTML and again as plain text: recorded 'refused', and the
    // feed goes on past it.
    env.bot.inject({ kind: "refuse", textContains: "Post b", times: Infinity });
    const before = Date.now();
    const once = await env.once();
    const after = Date.now();
    assert.equal(once.code, 0, once.stderr);
    assert.deepEqual(env.bot.messages().map((m) => m.bold[0]), ["Post a", "Post c"]);

    const text = await env.status();
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.split("\n");
    const row = lines.findIndex((l) => l.startsWith("news "));
    assert.match(lines[row], /\s2\s+2$/, "sent 2, not counting the refused one");
    assert.equal(
      lines[row + 1],
      "  refused: 1 entry the messenger would not take, never posted; latest:",
    );
    assert.match(
      lines[row + 2],
      /^ {4}(\d{2}:\d{2}|\d{4}-\d{2}-\d{2} \d{2}:\d{2}) {2}Post b {2}https:\/\/example\.org\/b$/,
    );

    const json = await env.status("--json");
    assert.equal(json.code, 0, json.stderr);
    const [news] = JSON.parse(json.stdout) as JsonFeed[];
    assert.equal(news.sent_total, 2);
    assert.equal(news.refused_total, 1);
    assert.equal(news.refused_latest.length, 1);
    const [refused] = news.refused_latest;
    assert.deepEqual({ ...refused, refused_at: "" }, {
      id: "b",
      title: "Post b",
      link: "https://example.org/b",
      refused_at: "",
    });
    // Refused during that run.
    const at = Date.parse(refused.refused_at);
    assert.ok(at >= before && at <= after, refused.refused_at);
  }));

Deno.test("status piped: the table without colours, a failed feed's full error under it", () =>
  withEnv(async (env) => {
    await ranOnce(env);
    const json = JSON.parse((await env.status("--json")).stdout) as JsonFeed[];
    const r = await env.status();
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes("\x1b"), "no escape codes when piped");
    const lines = r.stdout.trimEnd().split("\n");
    const clock = String.raw`(\d{4}-\d\d-\d\d )?\d\d:\d\d`;
    assert.equal(lines.length, 5, r.stdout);
    assert.match(lines[0], /^FEED\s+CRON\s+NEXT RUN\s+LAST SUCCESS\s+LAST RUN\s+SENT\s+SENT 24H$/);
    assert.match(
      lines[1],
      new RegExp(
        String.raw`^news\s+\*/5 \* \* \* \*\s+${clock} \(in .+\)\s+${clock} \(.+ ago\)` +
          String.raw`\s+ok\s+3\s+3$`,
      ),
    );
    assert.match(
      lines[2],
      new RegExp(
        String.raw`^bad\s+\*/5 \* \* \* \*\s+${clock} \(in .+\)` +
          String.raw`\s+never\s+failed\s+0\s+0$`,
      ),
    );
    // Piped, the error is not cut: it is the one recorded, whole.
    assert.equal(lines[3], `  error: ${json[1].last_run!.error}`);
    assert.match(
      lines[4],
      new RegExp(
        String.raw`^later\s+0 9 \* \* \*\s+${clock} \(in .+\)` +
          String.raw`\s+never\s+-\s+0\s+0$`,
      ),
    );
    // Columns line up: every row's CRON starts where the header's does.
    const at = lines[0].indexOf("CRON");
    for (const i of [1, 2, 4]) assert.match(lines[i].slice(at), /^[*0]/);
  }));

/** A process holding the data_dir lock with the real lock code, in a write transaction. */
async function lockedWriter(dir: string) {
  const code = `
    import Database from "npm:libsql@0.5.29";
    import { acquireLock } from ${JSON.stringify(LOCK_MODULE)};
    const lock = await acquireLock(${JSON.stringify(`${dir}/data`)});
    const db = new Database(${JSON.stringify(`${dir}/data/feed_data/courier.db`)});
    db.exec("BEGIN IMMEDIATE");
    db.prepare(\`INSERT INTO entries (feed, entry_id, title, status, seen_at, sent_at)
      VALUES ('news', 'z', 'Z', 'sent', ?, ?)\`).run(new Date().toISOString(), new Date().toISOString());
    console.log("writing");
    for await (const _ of Deno.stdin.readable) { /* hold */ }
    db.exec("COMMIT");
    db.close();
    lock.release();
    console.log("done");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value?.trim(), "writing");
  return {
    pid: child.pid,
    async finish() {
      await child.stdin.close();
      let out = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) out += r.value;
      assert.equal(out.trim(), "done");
      assert.equal((await child.status).code, 0);
    },
  };
}

Deno.test("status works beside a process holding the lock and writing (WAL)", () =>
  withEnv(async (env) => {
    await ranOnce(env);
    const holder = await lockedWriter(env.dir);
    let finished = false;
    try {
      // The lock is really held: once is refused, naming the holder.
      const once = await env.once();
      assert.equal(once.code, 1);
      assert.match(once.stderr, new RegExp(`pid ${holder.pid}`));

      const during = await env.status("--json");
      assert.equal(during.code, 0, during.stderr);
      const news = (JSON.parse(during.stdout) as JsonFeed[])[0];
      assert.equal(news.sent_total, 3, "the uncommitted entry is not seen");
      assert.equal(news.last_run!.outcome, "ok");
      const table = await env.status();
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^news\s.*\sok\s+3\s+3$/m);

      await holder.finish();
      finished = true;
      const after = JSON.parse((await env.status("--json")).stdout) as JsonFeed[];
      assert.equal(after[0].sent_total, 4);
      assert.equal(after[0].sent_24h, 4);
    } finally {
      if (!finished) await holder.finish();
    }
  }));

Deno.test("status with no state at the configured path says so, exit 1, nothing created", () =>
  withEnv(async (env) => {
    await env.writeConfig([
      feed("news", env.feeds.url("/news.xml")),
      feed("blog", env.feeds.url("/blog.xml"), "30 6 * * 1"),
    ]);
    // "never" for every feed and exit 0 would hide a data_dir that is not the runs' one.
    const line = `courier status: no state at ${env.dir}/data/feed_data/courier.db: nothing ` +
      `has run with ${env.config} yet, or the runs keep their state elsewhere (compare ` +
      "data_dir and database in 'courier validate')\n";
    for (const args of [[], ["--json"]]) {
      const r = await env.status(...args);
      assert.deepEqual([r.code, r.stdout, r.stderr], [1, "", line]);
    }
    await assert.rejects(Deno.stat(`${env.dir}/data`), Deno.errors.NotFound);
  }));

Deno.test("status: a feed that has not run yet is never, beside one that has", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a"]));
    await env.writeConfig([feed("news", env.feeds.url("/news.xml"))]);
    assert.equal((await env.once()).code, 0);
    await env.writeConfig([
      feed("news", env.feeds.url("/news.xml")),
      feed("blog", env.feeds.url("/blog.xml"), "30 6 * * 1"),
    ]);
    const text = await env.status();
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^blog\s.*\snever\s+-\s+0\s+0$/m);
    const json = await env.status("--json");
    assert.equal(json.code, 0);
    const doc = JSON.parse(json.stdout) as JsonFeed[];
    assert.deepEqual(
      doc.map((f) => [f.name, f.last_run === null, f.sent_total]),
      [["news", false, 1], ["blog", true, 0]],
    );
  }));

Deno.test("status never asks for the bot token: a credential only the service reads", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", items(["a", "b"]));
    // The README's systemd set-up: the token only as a credential, the config without one.
    await Deno.mkdir(`${env.dir}/credentials`);
    await Deno.writeTextFile(`${env.dir}/credentials/messenger_auth_token`, `${TOKEN}\n`, {
      mode: 0o600,
    });
    const list = [feed("news", env.feeds.url("/news.xml"))];
    await Deno.writeTextFile(env.config, stringify({ data_dir: `${env.dir}/data`, feeds: list }));
    const service = await runCli(["once", "-c", env.config, "--messenger-api", env.bot.url], {
      env: { CREDENTIALS_DIRECTORY: `${env.dir}/credentials` },
    });
    assert.equal(service.code, 0, service.stderr);
    // An operator's shell: no credential, no token anywhere.
    const r = await env.status();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^news\s.*\sok\s+2\s+2$/m);
    // A token file the operator may not read is not read either.
    await Deno.writeTextFile(
      env.config,
      stringify({
        data_dir: `${env.dir}/data`,
        messenger_auth_token_file: `${env.dir}/no-such-token`,
        feeds: list,
      }),
    );
    const unreadable = await env.status("--json");
    assert.equal(unreadable.code, 0, unreadable.stderr);
    assert.equal(JSON.parse(unreadable.stdout)[0].sent_total, 2);
    // once, which sends, still needs it.
    const once = await env.once();
    assert.equal(once.code, 2);
    assert.match(once.stderr, /no-such-token/);
  }));

Deno.test("status refuses a database of a newer courier in one line, exit 2", () =>
  withEnv(async (env) => {
    await env.writeConfig([feed("news", env.feeds.url("/news.xml"))]);
    await Deno.mkdir(`${env.dir}/data/feed_data`, { recursive: true });
    const db = `${env.dir}/data/feed_data/courier.db`;
    const make = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import Database from "npm:libsql@0.5.29"; new Database(${JSON.stringify(db)})` +
        `.exec("PRAGMA user_version = ${SCHEMA_VERSION + 5}");`,
      ],
      cwd: ROOT,
    });
    assert.equal((await make.output()).code, 0);
    for (const args of [[], ["--json"]]) {
      const r = await env.status(...args);
      assert.equal(r.code, 2);
      assert.equal(r.stdout, "");
      assert.equal(
        r.stderr,
        `courier status: database ${db} has schema version ${SCHEMA_VERSION + 5}, newer than ` +
          `this courier understands (${SCHEMA_VERSION}); upgrade courier\n`,
      );
    }
  }));

Deno.test("status: a bad config is reported like once reports it, exit 2", () =>
  withEnv(async (env) => {
    await Deno.writeTextFile(
      env.config,
      stringify({ messenger_auth_token: TOKEN, feeds: [{ name: "x", cron: "61 * * * *" }] }),
    );
    const r = await env.status();
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    // Located problems print one a line, as they are (as for once and validate).
    assert.match(r.stderr, /^\S*config\.yml:\d+:\d+: feeds\[0\]/);
    assert.match(r.stderr, /feeds\[0\]\.cron: invalid cron expression "61 \* \* \* \*"/);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
    const usage = await env.status("--feed", "x");
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^courier status: unknown option --feed /);
  }));

Deno.test("status --help, and the top-level help lists it", async () => {
  const help = await runCli(["status", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: courier status \[-c FILE\] \[--json\]$/m);
  assert.match(help.stdout, /read-only/);
  const top = await runCli(["--help"]);
  assert.equal(top.code, 0);
  assert.match(top.stdout, /^ {2}status\s+show each feed's next run/m);
});

/** Runs `courier status` on a pseudo-terminal `columns` wide (util-linux `script`). */
async function statusOnTerminal(env: Env, columns: number, noColor: string): Promise<string> {
  const main = new URL("../../main.ts", import.meta.url).pathname;
  const inner = `stty cols ${columns} rows 20; exec '${Deno.execPath()}' run --allow-all --quiet ` +
    `'${main}' status -c '${env.config}'`;
  const out = await new Deno.Command("script", {
    args: ["-qec", inner, "/dev/null"],
    cwd: env.dir,
    env: { NO_COLOR: noColor, TZ: "UTC" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).replaceAll("\r\n", "\n");
}

Deno.test("status on a terminal: colours unless NO_COLOR, the error cut to the width", () =>
  withEnv(async (env) => {
    await ranOnce(env);
    const coloured = await statusOnTerminal(env, 50, "");
    const ESC = "\x1b";
    assert.ok(coloured.includes(`${ESC}[1mFEED${ESC}[0m`), coloured);
    assert.ok(coloured.includes(`${ESC}[32mok${ESC}[0m`), coloured);
    assert.ok(coloured.includes(`${ESC}[31mfailed${ESC}[0m`), coloured);
    const errorLine = coloured.split("\n").find((l) => l.includes("error: "))!;
    const plain = errorLine.replaceAll(`${ESC}[31m`, "").replaceAll(`${ESC}[0m`, "");
    assert.equal([...plain].length, 50, plain);
    assert.ok(plain.startsWith("  error: ") && plain.endsWith("…"), plain);

    const bare = await statusOnTerminal(env, 50, "1");
    assert.ok(!bare.includes("\x1b["), bare);
    assert.match(bare, /^bad\s.*\sfailed\s+0\s+0$/m);
  }));

Deno.test("status: an unreadable last-success file is one line, exit 1", () =>
  withEnv(async (env) => {
    await env.writeConfig([feed("news", env.feeds.url("/news.xml"))]);
    // A database without the successes' table (an empty file): the file is read instead.
    await Deno.mkdir(`${env.dir}/data/feed_data`, { recursive: true });
    await Deno.writeFile(`${env.dir}/data/feed_data/courier.db`, new Uint8Array());
    await Deno.writeTextFile(
      `${env.dir}/data/last_success.yml`,
      '"news": 2024-01-01T00:00:00Z\n"other": x: 2024-01-02T00:00:00Z\n',
    );
    const r = await env.status();
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    // Whole, on one line: where (file:line:col) and what is wrong, not cut at "column 6:".
    assert.equal(
      r.stderr,
      `courier status: ${env.dir}/data/last_success.yml:2:11: cannot parse the last-success ` +
        "file: bad indentation of a mapping entry\n",
    );
  }));
