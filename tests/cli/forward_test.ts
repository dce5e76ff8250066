/**
 * `courier forward` as a user runs it: the real process against local feed servers and the fake
 * Bot API, driven by signals. Conditions are polled (the process's log, the fake's messages);
 * one test waits for one real minute boundary (the old config going on after a failed reload).
 */
import assert from "node:assert/strict";
import { closedPort } from "../support/hostile_servers.ts";
import Database from "npm:libsql@0.5.29";
import { stringify } from "../support/yaml.ts";
import { acquireLock } from "../../src/store/lock.ts";
import { runCli } from "../support/cli.ts";
import { withinChild } from "../support/child.ts";
import { writeTestConfig } from "../support/cli_env.ts";
import { type FakeBotApi, startFakeBotApi } from "../support/fake_bot_api.ts";
import { deferred } from "../support/forward_stubs.ts";
import { requireTool } from "../support/tools.ts";
import { type FeedServer, rss, startFeedServer } from "../support/once_feeds.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const TOKEN = "123456:TEST-token_abc";

/** A running courier process whose stderr and stdout are collected as they come. */
class Courier {
  readonly #child: Deno.ChildProcess;
  stderr = "";
  stdout = "";
  readonly status: Promise<Deno.CommandStatus>;
  readonly #drained: Promise<void>;

  constructor(args: string[], cwd: string, env: Record<string, string> = {}) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--quiet", MAIN, ...args],
      cwd,
      env: { NO_COLOR: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const collect = async (stream: ReadableStream<Uint8Array>, into: "stderr" | "stdout") => {
      for await (const text of stream.pipeThrough(new TextDecoderStream())) this[into] += text;
    };
    this.#drained = Promise.all([
      collect(this.#child.stderr, "stderr"),
      collect(this.#child.stdout, "stdout"),
    ]).then(() => {});
    this.status = this.#child.status;
  }

  kill(signal: Deno.Signal): void {
    this.#child.kill(signal);
  }

  /** Polls until `condition` holds; fails (showing the log) after `seconds`. */
  async until(what: string, condition: () => boolean, seconds = 20): Promise<void> {
    for (let i = 0; i < seconds * 100; i++) {
      if (condition()) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`);
  }

  /** Polls until the log has a line matching `pattern`; returns that line. */
  async line(pattern: RegExp, seconds = 20): Promise<string> {
    let found: string | undefined;
    await this.until(
      String(pattern),
      () => (found = this.stderr.split("\n").find((l) => pattern.test(l))) !== undefined,
      seconds,
    );
    return found!;
  }

  /** Waits for the exit and the end of its output. */
  async exit(): Promise<number> {
    const { code } = await withinChild(this.#child, "courier's exit", this.status);
    await withinChild(this.#child, "courier's output ending", this.#drained);
    for (const text of [this.stdout, this.stderr]) {
      assert.ok(!text.includes(TOKEN) && !text.includes("TEST-token"), `token leaked:\n${text}`);
    }
    return code;
  }

  /** Stops it for good (a failed test must not leave it running). */
  async kill9(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
    await this.status;
    await this.#drained;
  }
}

interface Env {
  dir: string;
  config: string;
  feeds: FeedServer;
  bot: FakeBotApi;
  writeConfig(doc: Record<string, unknown>): Promise<void>;
  forward(...args: string[]): Courier;
  forwardWith(env: Record<string, string>, ...args: string[]): Courier;
}

function feed(name: string, url: string, extra: Record<string, unknown> = {}) {
  return { name, channel: `@chan_${name}`, url, cron: "* * * * *", type: "rss", ...extra };
}

async function withEnv(fn: (env: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  const config = `${dir}/config.yml`;
  const started: Courier[] = [];
  const env: Env = {
    dir,
    config,
    feeds,
    bot,
    writeConfig: (doc) => writeTestConfig(config, dir, doc),
    forward(...args) {
      return env.forwardWith({}, ...args);
    },
    forwardWith(vars, ...args) {
      const c = new Courier(
        ["forward", "-c", config, "--messenger-api", bot.url, ...args],
        dir,
        vars,
      );
      started.push(c);
      return c;
    },
  };
  try {
    await fn(env);
  } finally {
    for (const c of started) await c.kill9();
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const bolds = (bot: FakeBotApi, chat?: string) => bot.messages(chat).map((m) => m.bold[0]);

Deno.test("forward: catches up at start, serves /healthz and /metrics, a SIGHUP adds a feed, SIGTERM exits 0 and frees the lock", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", [{ id: "n1", title: "N one" }, {
      id: "n2",
      title: "N two",
      minute: 1,
    }]);
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    const port = closedPort();
    const courier = env.forward("--metrics", `127.0.0.1:${port}`);

    assert.match(
      await courier.line(/ msg=scheduled feed=news/),
      /level=info msg=scheduled feed=news cron="\* \* \* \* \*" next_run=\S+Z catch_up=true/,
    );
    await courier.until("the catch-up posts", () => env.bot.messages().length === 2);
    assert.deepEqual(bolds(env.bot), ["N one", "N two"]);
    await courier.line(/msg="feed sent" feed=news sent=2/);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);
    const body = await health.json();
    assert.equal(body.status, "ok");
    assert.equal(body.feeds, 1);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /^# TYPE courier_feed_runs_total counter$/m);
    assert.match(metrics, /^courier_feed_entries_sent_total\{feed="news"\} 2$/m);
    assert.match(metrics, /^courier_messenger_responses_total\{code="200"\} 2$/m);

    // A feed added and SIGHUP: it catches up at once, without a restart.
    env.feeds.set("/extra.xml", [{ id: "e1", title: "E one" }]);
    await env.writeConfig({
      feeds: [feed("news", env.feeds.url("/news.xml")), feed("extra", env.feeds.url("/extra.xml"))],
    });
    courier.kill("SIGHUP");
    assert.match(
      await courier.line(/ msg=reloaded /),
      /reloaded feeds=2 added=extra changed=none removed=none messenger=unchanged/,
    );
    await courier.until("the added feed posts", () => bolds(env.bot, "@chan_extra").length === 1);
    assert.deepEqual(bolds(env.bot, "@chan_extra"), ["E one"]);

    courier.kill("SIGTERM");
    assert.equal(await courier.exit(), 0, courier.stderr);
    assert.match(courier.stderr, /stopping signal=SIGTERM grace_s=30/);
    assert.match(courier.stderr, /level=info msg=stopped\n/);
    // Released, not left behind: taking it is not a takeover.
    const lock = await acquireLock(`${env.dir}/data`);
    assert.equal(lock.takenOverFrom, null);
    lock.release();
    const last = await Deno.readTextFile(`${env.dir}/data/last_success.yml`);
    assert.match(last, /^"news": /m);
    assert.match(last, /^"extra": /m);
    // The state was pruned at start (its time is kept) and lives in courier.db alone after the
    // stop: the -wal file is empty, so a copy of courier.db is the whole state.
    const db = `${env.dir}/data/feed_data/courier.db`;
    const wal = await Deno.stat(`${db}-wal`).then((s) => s.size, () => 0);
    assert.equal(wal, 0, "the WAL was checkpointed at the stop");
    const copy = `${env.dir}/copy.db`;
    await Deno.copyFile(db, copy);
    const state = new Database(copy, { readonly: true });
    try {
      const pruned = state.prepare("SELECT value FROM meta WHERE key = 'pruned_at'").raw().get();
      assert.ok(pruned, "pruned at start");
      const sent = state.prepare("SELECT count(*) FROM entries WHERE status = 'sent'").raw().get();
      assert.equal(Number((sent as unknown[])[0]), bolds(env.bot).length);
    } finally {
      state.close();
    }
  }));

Deno.test("forward: a broken config or a new data_dir on SIGHUP is refused with the located errors, and the old feeds go on", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", [{ id: "n1", title: "N one" }]);
    const good = { feeds: [feed("news", env.feeds.url("/news.xml"))] };
    await env.writeConfig(good);
    const courier = env.forward();
    await courier.until("the catch-up posts", () => env.bot.messages().length === 1);

    await Deno.writeTextFile(
      env.config,
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: `${env.dir}/data`,
        feeds: [{ ...feed("news", env.feeds.url("/news.xml")), cron: "61 * * * *", chanel: "x" }],
      }),
    );
    courier.kill("SIGHUP");
    assert.match(
      await courier.line(/reload failed/),
      /level=error msg="reload failed; the running config stays" problems=2/,
    );
    const located = `${env.config}:\\d+:\\d+: feeds\\[0\\]`;
    await courier.line(new RegExp(`level=error msg="${located}.*chanel`));
    await courier.line(new RegExp(`level=error msg="${located}\\.cron`));

    await env.writeConfig({ ...good, data_dir: `${env.dir}/elsewhere` });
    courier.kill("SIGHUP");
    await courier.line(
      /level=error .*config\.yml: data_dir changed from .*\/data to .*\/elsewhere: this needs a restart/,
    );
    assert.equal(courier.stderr.match(/reload failed/g)?.length, 2);
    assert.doesNotMatch(courier.stderr, / msg=reloaded /);

    // The old config goes on: at the next minute its feed runs and posts a new entry.
    env.feeds.set("/news.xml", [{ id: "n1", title: "N one" }, { id: "n2", title: "N two" }]);
    await courier.until("the next minute's run", () => env.bot.messages().length === 2, 75);
    assert.deepEqual(bolds(env.bot), ["N one", "N two"]);

    courier.kill("SIGINT");
    assert.equal(await courier.exit(), 0, courier.stderr);
  }));

/** A feed server whose answers wait until released. */
function hangingFeed() {
  const gate = deferred();
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    hits++;
    await gate.promise;
    return new Response(rss("slow", [{ id: "s1", title: "S one" }]), {
      headers: { "content-type": "application/rss+xml" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/slow.xml`,
    hits: () => hits,
    close: async () => {
      gate.resolve();
      await server.shutdown();
    },
  };
}

Deno.test("forward: a second SIGTERM during the grace period exits at once with 143", () =>
  withEnv(async (env) => {
    const slow = hangingFeed();
    try {
      await env.writeConfig({ feeds: [feed("slow", slow.url)] });
      const courier = env.forward("--grace", "600");
      await courier.until("the run started", () => slow.hits() === 1);
      courier.kill("SIGTERM");
      await courier.line(/msg=stopping signal=SIGTERM grace_s=600/);
      courier.kill("SIGTERM");
      assert.equal(await courier.exit(), 143);
      assert.doesNotMatch(courier.stderr, /level=info msg=stopped/);
      assert.equal(env.bot.messages().length, 0);
      // Left as by a crash: the next courier takes the lock over from the process that is gone.
      const lock = await acquireLock(`${env.dir}/data`);
      assert.equal(typeof lock.takenOverFrom, "number");
      lock.release();
    } finally {
      await slow.close();
    }
  }));

Deno.test("once: the first SIGINT lets the run end, prints the summary and exits 130", () =>
  withEnv(async (env) => {
    const slow = hangingFeed();
    try {
      env.feeds.set("/news.xml", [{ id: "n1", title: "N one" }]);
      await env.writeConfig({
        feeds: [feed("news", env.feeds.url("/news.xml")), feed("slow", slow.url)],
      });
      const once = new Courier(
        ["once", "-c", env.config, "--messenger-api", env.bot.url],
        env.dir,
      );
      try {
        await once.until("both feeds started", () => slow.hits() === 1);
        await once.until("news sent", () => env.bot.messages().length === 1);
        once.kill("SIGINT");
        assert.equal(await once.exit(), 130, once.stderr);
        assert.match(once.stderr, /level=warn msg="stopping: .*signal=SIGINT/);
        // The summary still comes: news sent, slow stopped.
        assert.match(once.stdout, /news/);
        assert.match(once.stdout, /slow/);
        assert.match(once.stdout, /stopped: SIGINT received/);
      } finally {
        await once.kill9();
      }
    } finally {
      await slow.close();
    }
  }));

Deno.test("forward: bad flags are usage errors (exit 2, one line, nothing started)", () =>
  withEnv(async (env) => {
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    const cases: [string[], RegExp][] = [
      [
        ["--grace", "soon"],
        /^courier forward: --grace must be a number of seconds >= 0, got "soon"$/,
      ],
      [["--metrics", "http://x:1"], /^courier forward: --metrics "http:\/\/x:1": give HOST:PORT/],
      [["--log-level", "loud"], /^courier forward: --log-level must be one of debug, info/],
      [["--concurrency", "0"], /^courier forward: --concurrency must be a positive integer/],
      [
        ["--fetch-timeout", "0"],
        /^courier forward: --fetch-timeout must be a number of seconds > 0, got "0"$/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(["forward", "-c", env.config, ...args], { cwd: env.dir });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.trim(), message);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
    assert.equal(env.feeds.hits("/news.xml"), 0);
    const help = await runCli(["forward", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--grace SECONDS/);
    assert.match(help.stdout, /--fetch-timeout SECONDS/);
    assert.match(help.stdout, /SIGHUP/);
  }));

Deno.test("forward: /readyz, build info, a feed that never succeeded has a last-success series, promtool check metrics is clean", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", [{ id: "n1", title: "N one" }]);
    env.feeds.fail("/down.xml", 500);
    await env.writeConfig({
      feeds: [feed("news", env.feeds.url("/news.xml")), feed("down", env.feeds.url("/down.xml"))],
    });
    const port = closedPort();
    const courier = env.forward("--metrics", `127.0.0.1:${port}`);
    await courier.line(/msg="feed sent" feed=news sent=1/);
    await courier.line(/msg="feed failed" feed=down/);

    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.deepEqual([ready.status, await ready.json()], [200, { status: "ready" }]);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(text, /^courier_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m);
    assert.match(text, /^courier_feed_last_success_timestamp_seconds\{feed="down"\} 0$/m);
    assert.match(text, /^courier_feed_last_success_timestamp_seconds\{feed="news"\} \d{10}/m);
    assert.match(text, /^courier_feed_entries_refused_total\{feed="news"\} 0$/m);
    for (
      const name of ["cpu_seconds_total", "resident_memory_bytes", "open_fds", "start_time_seconds"]
    ) {
      assert.match(text, new RegExp(`^process_${name} \\d`, "m"), name);
    }

    if (await requireTool("promtool", "promtool check metrics")) {
      const check = new Deno.Command("promtool", {
        args: ["check", "metrics"],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = check.stdin.getWriter();
      await writer.write(new TextEncoder().encode(text));
      await writer.close();
      const out = await check.output();
      const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.deepEqual([out.code, said.trim()], [0, ""], "promtool check metrics");
    }
    courier.kill("SIGTERM");
    assert.equal(await courier.exit(), 0, courier.stderr);
  }));

Deno.test("forward: tells systemd READY=1, pings the watchdog, says STOPPING=1 ($NOTIFY_SOCKET)", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", [{ id: "n1", title: "N one" }]);
    await env.writeConfig({ feeds: [feed("news", env.feeds.url("/news.xml"))] });
    const socketDir = await Deno.makeTempDir();
    const path = `${socketDir}/notify`;
    // What systemd listens on: a unix datagram socket.
    const systemd = Deno.listenDatagram({ path, transport: "unixpacket" });
    const messages: string[] = [];
    const next = async () => {
      const [data] = await systemd.receive();
      const text = new TextDecoder().decode(data);
      messages.push(text);
      return text;
    };
    try {
      // A 200 ms watchdog: pinged every 100 ms while the scheduler is healthy.
      const courier = env.forwardWith({ NOTIFY_SOCKET: path, WATCHDOG_USEC: "200000" });
      const first = await next();
      assert.match(first, /^READY=1\nSTATUS=forwarding 1 feeds\nMAINPID=\d+$/);
      assert.equal(await next(), "WATCHDOG=1");
      courier.kill("SIGTERM");
      while (!messages.includes("STOPPING=1\nSTATUS=stopping")) await next();
      assert.equal(await courier.exit(), 0, courier.stderr);
      assert.ok(messages.slice(1, -1).every((m) => m === "WATCHDOG=1"), messages.join(" | "));
    } finally {
      systemd.close();
      await Deno.remove(socketDir, { recursive: true });
    }
  }));

Deno.test("forward: /metrics counts what a feed's filter drops; after a SIGHUP its new filter applies to new entries only", () =>
  withEnv(async (env) => {
    env.feeds.set("/news.xml", [
      { id: "n1", title: "Rust news" },
      { id: "n2", title: "Cooking", minute: 1 },
      { id: "n3", title: "More rust", minute: 2 },
    ]);
    await env.writeConfig({
      feeds: [feed("news", env.feeds.url("/news.xml"), { filter: { include: ["rust"] } })],
    });
    const port = closedPort();
    const courier = env.forward("--metrics", `127.0.0.1:${port}`);
    await courier.until("the catch-up posts", () => env.bot.messages().length === 2);
    await courier.line(/msg="feed sent" feed=news sent=2/);
    assert.deepEqual(bolds(env.bot), ["Rust news", "More rust"]);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /^# TYPE courier_feed_entries_filtered_total counter$/m);
    assert.match(metrics, /^courier_feed_entries_filtered_total\{feed="news"\} 1$/m);

    // The filter now keeps everything; a new entry arrives. Only it is posted, not "Cooking".
    env.feeds.set("/news.xml", [
      { id: "n1", title: "Rust news" },
      { id: "n2", title: "Cooking", minute: 1 },
      { id: "n3", title: "More rust", minute: 2 },
      { id: "n4", title: "Baking", minute: 3 },
    ]);
    await env.writeConfig({
      feeds: [feed("news", env.feeds.url("/news.xml"), { cron: "* * * * *", filter: {} })],
    });
    courier.kill("SIGHUP");
    assert.match(await courier.line(/ msg=reloaded /), /changed=news/);
    await courier.until("the new entry posts", () => env.bot.messages().length === 3, 90);
    assert.deepEqual(bolds(env.bot), ["Rust news", "More rust", "Baking"]);
    courier.kill("SIGTERM");
    assert.equal(await courier.exit(), 0, courier.stderr);
  }));
