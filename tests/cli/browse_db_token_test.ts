/**
 * `courier browse` with no DATABASE and a config with `db_url`: the database's auth token is
 * found as once, forward and status find it (`--auth-token`, else $LIBSQL_AUTH_TOKEN, else the
 * config's `db_auth_token_file`), and is what reaches the server. A loopback proxy in front of
 * the libSQL project's Hrana server records the Authorization header of every request; the
 * token never shows in the process's output or command line.
 */
import { readToEnd, signal, stopChild, withinChild } from "../support/child.ts";
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { readUntilServing } from "../support/browse_process.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const FILE_TOKEN = "from-the-token-file-123";
const ENV_TOKEN = "from-the-environment-456";
const FLAG_TOKEN = "from-the-flag-789";
const missing = hranaMissing();

/** Relays every request to `target` and keeps its Authorization header. */
function recordingProxy(target: string) {
  const seen: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    seen.push(req.headers.get("authorization"));
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "HEAD"
      ? undefined
      : await req.arrayBuffer();
    const answer = await fetch(new URL(url.pathname + url.search, target), {
      method: req.method,
      headers: req.headers,
      body,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, seen, close: () => server.shutdown() };
}

/** Runs `courier browse ARGS --port 0`, lists the tables once, stops it; all it printed. */
async function browseOnce(args: string[], env: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "browse", "--port", "0", ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  try {
    const serving = await withinChild(
      child,
      "browse serving",
      readUntilServing(reader, () => stderr),
    );
    const url = serving.url;
    stdout = serving.seen;
    const tables = await fetch(new URL("/api/tables", url));
    const text = await tables.text();
    assert.equal(tables.status, 200, text);
    assert.ok((JSON.parse(text) as string[]).includes("t"), text);
    const argv = await Deno.readTextFile(`/proc/${child.pid}/cmdline`);
    return { argv, text };
  } finally {
    const stopped = stopChild(child);
    await withinChild(child, "browse's output ending", readToEnd(reader, (text) => stdout += text));
    const status = await stopped;
    const err = await stderr;
    assert.equal(status.code, 0, err);
    for (const token of [FILE_TOKEN, ENV_TOKEN, FLAG_TOKEN]) {
      assert.ok(!stdout.includes(token) && !err.includes(token), "no token in the output");
    }
  }
}

/** Runs `courier browse ARGS --port 0` to its exit; one that starts serving is stopped. */
async function browseExit(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "browse", "--port", "0", ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let stdout = "";
  await withinChild(
    child,
    `courier browse ${args.join(" ")}`,
    (async () => {
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        stdout += chunk;
        // A regression must fail the test, not hang it.
        if (stdout.includes("serving")) signal(child, "SIGTERM");
      }
    })(),
  );
  return { code: (await stopChild(child)).code, stdout, stderr: await stderr };
}

async function writeConfig(dir: string, dbUrl: string, tokenFile: string): Promise<string> {
  const config = `${dir}/config.yml`;
  await Deno.writeTextFile(
    config,
    stringify({
      messenger_auth_token: "123456789:AAExampleTokenDoNotUse_0123456789ab",
      db_url: dbUrl,
      db_auth_token_file: tokenFile,
      feeds: [{
        name: "one",
        channel: "@chan",
        url: "https://example.org/feed.xml",
        cron: "*/5 * * * *",
        type: "rss",
      }],
    }),
  );
  return config;
}

Deno.test({
  name: "browse without DATABASE sends db_auth_token_file's token; env and --auth-token win",
  ignore: missing !== null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "browse_db_token_" });
    const db = `${dir}/state.db`;
    const sqlite = await new Deno.Command("sqlite3", { args: [db, "CREATE TABLE t (a)"] }).output();
    assert.ok(sqlite.success);
    const server = await startHrana(db);
    const proxy = recordingProxy(server.url);
    try {
      await Deno.writeTextFile(`${dir}/db_token`, `${FILE_TOKEN}\n`);
      await Deno.chmod(`${dir}/db_token`, 0o600);
      const config = await writeConfig(dir, proxy.url, `${dir}/db_token`);
      const cases: [string[], Record<string, string>, string][] = [
        [[], {}, FILE_TOKEN],
        [[], { LIBSQL_AUTH_TOKEN: ENV_TOKEN }, ENV_TOKEN],
        [["--auth-token", FLAG_TOKEN], { LIBSQL_AUTH_TOKEN: ENV_TOKEN }, FLAG_TOKEN],
      ];
      for (const [args, env, expected] of cases) {
        proxy.seen.length = 0;
        const { argv, text } = await browseOnce(["-c", config, ...args], env);
        assert.ok(proxy.seen.length > 0, "the server was asked");
        // Every request that carried a token carried this one (a version probe may carry none).
        const sent = new Set(proxy.seen.filter((h) => h !== null));
        assert.deepEqual([...sent], [`Bearer ${expected}`], `${args} ${Object.keys(env)}`);
        if (expected !== FLAG_TOKEN) assert.ok(!argv.includes(expected), "not in ps");
        assert.ok(!text.includes(expected));
      }
    } finally {
      await proxy.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("browse without DATABASE: an unreadable db_auth_token_file is one line naming it, exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_db_token_" });
  try {
    // Nothing listens there: the token file is read, and refused, before any connection.
    const url = "http://127.0.0.1:9";
    await Deno.writeTextFile(`${dir}/empty`, "");
    await Deno.writeTextFile(`${dir}/locked`, `${FILE_TOKEN}\n`);
    await Deno.chmod(`${dir}/locked`, 0o000);
    const lockedReadable = await Deno.readTextFile(`${dir}/locked`).then(() => true, () => false);
    const cases: [string, RegExp][] = [
      [`${dir}/missing`, /db_auth_token_file \S+\/missing: no such file/],
      [`${dir}/empty`, /db_auth_token_file \S+\/empty: the first line holds no token/],
      [dir, /db_auth_token_file \S+: it is a directory/],
    ];
    // Root reads any file; the case only means something for other users.
    if (!lockedReadable) cases.push([`${dir}/locked`, /\/locked: permission denied/]);
    for (const [file, pattern] of cases) {
      const config = await writeConfig(dir, url, file);
      const r = await browseExit(["-c", config]);
      assert.equal(r.code, 2, `${file}: ${r.stderr}`);
      assert.match(r.stderr, /^courier browse: /);
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.ok(!r.stderr.includes("    at "), "no stack trace");
      assert.ok(!r.stderr.includes(FILE_TOKEN) && !r.stdout.includes(FILE_TOKEN));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
