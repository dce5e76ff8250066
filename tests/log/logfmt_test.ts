/**
 * Text logs are logfmt that a logfmt parser reads back (npm `logfmt`, the reader Heroku's and
 * many log shippers use), and under systemd each line carries its syslog priority prefix.
 */
// A test-only package: an npm: specifier here keeps it out of the product's import map.
import logfmt from "npm:logfmt@^1.4.0";
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { createLogger, journalStream } from "../../src/log/logger.ts";
import { logfmtLine, logfmtValue } from "../../src/log/logfmt.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { postItems, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_logs";

Deno.test("logfmt: values a parser reads back as they were", () => {
  const values = [
    "plain",
    "two words",
    'say "hi"',
    "a=b",
    "back\\slash",
    "",
    "http://127.0.0.1:8080/feed.xml?x=1&y=2",
    "ünïcödé ☃",
  ];
  for (const value of values) {
    const parsed = logfmt.parse(logfmtLine([["msg", "m"], ["k", value]]));
    assert.deepEqual(parsed, { msg: "m", k: value }, JSON.stringify(value));
  }
  // Numbers, booleans and objects as JSON; undefined left out.
  assert.deepEqual(
    logfmt.parse(logfmtLine([["n", 3], ["b", true], ["o", { a: 1 }], ["u", undefined]])),
    { n: "3", b: true, o: '{"a":1}' }, // the parser reads a bare true as a boolean
  );
});

Deno.test("logfmt: line breaks and control characters stay on one line, escaped", () => {
  const value = "first\nsecond\tthird\u0007";
  const text = logfmtValue(value);
  assert.ok(![..."\n\t\u0007"].some((c) => text.includes(c)), text);
  // The escapes are JSON's, which Go's logfmt decoder (Loki) undoes the same way.
  assert.equal(JSON.parse(text), value);
});

Deno.test("logger: text lines are time=… level=… msg=… then the fields", () => {
  const lines: string[] = [];
  const logger = createLogger({
    format: "text",
    color: false,
    level: "debug",
    write: (line) => lines.push(line),
    now: () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
  });
  logger.error("feed failed", { feed: "news", error: 'HTTP 500 "oops"' });
  logger.debug("feed checked: nothing new", { feed: "a.b-c" });
  assert.deepEqual(lines, [
    'time=2026-01-02T03:04:05.000Z level=error msg="feed failed" feed=news error="HTTP 500 \\"oops\\""',
    'time=2026-01-02T03:04:05.000Z level=debug msg="feed checked: nothing new" feed=a.b-c',
  ]);
  assert.deepEqual(Object.keys(logfmt.parse(lines[0])), ["time", "level", "msg", "feed", "error"]);
});

Deno.test("logger: journald priority prefixes only when stderr is $JOURNAL_STREAM", () => {
  const stat = () => ({ dev: 27, ino: 9001 });
  assert.equal(journalStream("27:9001", stat), true);
  assert.equal(journalStream("27:9002", stat), false, "stderr was redirected since");
  assert.equal(journalStream(undefined, stat), false);
  assert.equal(journalStream("garbage", stat), false);
  const lines: string[] = [];
  const logger = createLogger({
    format: "json",
    color: false,
    level: "debug",
    journal: true,
    write: (line) => lines.push(line),
  });
  logger.debug("d");
  logger.info("i");
  logger.warn("w");
  logger.error("e");
  assert.deepEqual(lines.map((l) => l.slice(0, 3)), ["<7>", "<6>", "<4>", "<3>"]);
  assert.deepEqual(Object.keys(JSON.parse(lines[0].slice(3))), ["time", "level", "msg"]);
});

/** `courier once` with a failing feed, stderr being the stream JOURNAL_STREAM names (or not). */
async function onceLog(
  journal: "match" | "other" | "unset",
  env: Record<string, string> = {},
): Promise<string[]> {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  try {
    // With a token of its own in `env`, the feed is up: the run ends at the first send.
    if (env.COURIER_MESSENGER_AUTH_TOKEN) feeds.set("/down.xml", postItems(["a"]));
    else feeds.fail("/down.xml", 503);
    await Deno.writeTextFile(
      `${dir}/config.yml`,
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: `${dir}/data`,
        feeds: [{
          name: "down",
          channel: "@c_chan",
          url: feeds.url("/down.xml"),
          cron: "* * * * *",
          type: "rss",
        }],
      }),
    );
    const main = new URL("../../main.ts", import.meta.url).pathname;
    // stat names the stderr it was given: the same pipe courier then writes to.
    const set = journal === "match"
      ? "export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2); "
      : journal === "other"
      ? "export JOURNAL_STREAM=1:1; "
      : "unset JOURNAL_STREAM; ";
    const out = await new Deno.Command("bash", {
      args: ["-c", `${set}exec "$0" run -A --quiet "$1" once -c "$2" --messenger-api "$3"`]
        .concat([Deno.execPath(), main, `${dir}/config.yml`, bot.url]),
      env: { NO_COLOR: "1", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 1);
    return new TextDecoder().decode(out.stderr).trimEnd().split("\n");
  } finally {
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("logger: a real run's lines parse as logfmt; under systemd each starts with <priority>", async () => {
  if (Deno.build.os !== "linux") return;
  const plain = await onceLog("unset");
  assert.ok(plain.length >= 1);
  for (const line of plain) {
    const fields = logfmt.parse(line) as Record<string, string>;
    assert.ok(!Number.isNaN(Date.parse(fields.time)), line);
    assert.ok(["debug", "info", "warn", "error"].includes(fields.level), line);
    assert.ok(fields.msg, line);
  }
  const failed = plain.map((l) => logfmt.parse(l)).find((f) => f.msg === "feed failed");
  assert.equal(failed?.feed, "down");

  const journal = await onceLog("match");
  assert.equal(journal.length, plain.length);
  for (const line of journal) {
    const level = /level=(\w+)/.exec(line)?.[1];
    const priority = { debug: "<7>", info: "<6>", warn: "<4>", error: "<3>" }[level ?? ""];
    assert.ok(priority && line.startsWith(`${priority}time=`), line);
  }
  // A JOURNAL_STREAM that is not this stderr (inherited, then redirected): no prefix.
  for (const line of await onceLog("other")) assert.match(line, /^time=/);
});

Deno.test("logger: the closing line of a run the messenger stopped has its priority too", async () => {
  if (Deno.build.os !== "linux") return;
  // A token the fake refuses (401): once ends with its own line, outside the logger.
  const env = { COURIER_MESSENGER_AUTH_TOKEN: "999999:WRONG-token_xyz" };
  const closing = (lines: string[]) => lines.filter((l) => l.includes("courier once: "));
  assert.deepEqual(
    closing(await onceLog("unset", env)).map((l) => l.slice(0, 30)),
    ["courier once: messenger reject"],
  );
  assert.deepEqual(
    closing(await onceLog("match", env)).map((l) => l.slice(0, 33)),
    ["<3>courier once: messenger reject"],
  );
});
