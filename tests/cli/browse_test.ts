import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";
import { startBrowseProcess } from "../support/browse_process.ts";

Deno.test("courier browse: serves the given database and prints its URL; SIGTERM exits 0", async () => {
  const path = await makeFixtureDb();
  const server = await startBrowseProcess([path]);
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const res = await fetch(new URL("/api/tables", server.url));
    assert.equal(res.status, 200);
    assert.ok(((await res.json()) as string[]).includes("items"));
  } finally {
    const status = await server.stop();
    assert.equal(status.code, 0);
  }
});

Deno.test("courier browse: the default database comes from the config's db_dir", async () => {
  // No bot token anywhere (browse never sends), and data_dir relative: the config's directory.
  const dir = await Deno.makeTempDir({ prefix: "browse_cli_" });
  await Deno.mkdir(`${dir}/data/feed_data`, { recursive: true });
  await makeFixtureDb(`${dir}/data/feed_data`);
  await Deno.rename(`${dir}/data/feed_data/fixture.db`, `${dir}/data/feed_data/courier.db`);
  const config = `${dir}/config.yml`;
  await Deno.writeTextFile(
    config,
    `data_dir: data\nfeeds:\n  - name: one\n    channel: "@chan"\n    url: https://example.org/feed.xml\n    cron: "*/5 * * * *"\n    type: rss\n`,
  );
  const server = await startBrowseProcess(["-c", config]).catch((e) => e as Error);
  if (server instanceof Error) throw server;
  try {
    const info = await (await fetch(new URL("/api/info", server.url))).json();
    assert.equal(info.database, "courier.db");
    assert.equal(info.read_only, true);
  } finally {
    await server.stop();
  }
});

Deno.test("courier browse: usage and config errors exit 2 with one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_cli_" });
  const path = await makeFixtureDb(dir);
  const cases: [string[], RegExp][] = [
    [[path, "--host", "0.0.0.0", "--port", "0"], /without a token/],
    [[`${dir}/missing.db`], /database not found/],
    [[path, "--timeout", "soon"], /--timeout/],
    [[path, "--max-rows", "0"], /--max-rows/],
    [[path, "--port", "70000"], /--port/],
    [[path, "--bogus"], /bogus/],
    [["-c", `${dir}/nope.yml`], /no config|nope\.yml/],
    [[path, "--cors", "*"], /--cors '\*' needs a token/],
    [[path, "--cors", "http://a.example", "--cors", "*"], /--cors '\*' needs a token/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runCli(["browse", ...args], { cwd: dir });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
  }
});

Deno.test("courier browse: --token-file problems are one-line usage errors naming the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_cli_" });
  const path = await makeFixtureDb(dir);
  const secret = "has a space in it";
  await Deno.writeTextFile(`${dir}/empty`, "");
  await Deno.writeTextFile(`${dir}/blank-first`, "\n  \ns3cret-token-value\n");
  await Deno.writeTextFile(`${dir}/spaced`, `${secret}\n`);
  await Deno.writeTextFile(`${dir}/short`, "short\n");
  await Deno.writeTextFile(`${dir}/locked`, "s3cret-token-value\n");
  await Deno.chmod(`${dir}/locked`, 0o000);
  const lockedReadable = await Deno.readTextFile(`${dir}/locked`).then(() => true, () => false);
  const cases: [string[], RegExp][] = [
    [["--token-file", `${dir}/missing`], /--token-file \S*missing: no such file/],
    [["--token-file", `${dir}/empty`], /--token-file \S*empty: the first line holds no token/],
    [["--token-file", `${dir}/blank-first`], /blank-first: the first line holds no token/],
    [["--token-file", dir], /--token-file \S+: it is a directory/],
    [["--token-file", `${dir}/spaced`], /the token may hold only/],
    [["--token-file", `${dir}/short`], /at least 8 characters/],
    [["--token-file", `${dir}/short`, "--token", "s3cret-token-value"], /not both/],
  ];
  // Root reads any file; the case only means something for other users.
  if (!lockedReadable) cases.push([["--token-file", `${dir}/locked`], /locked: permission denied/]);
  for (const [args, pattern] of cases) {
    const r = await runCli(["browse", path, ...args], { cwd: dir });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.ok(!r.stderr.includes(secret) && !r.stderr.includes("s3cret"), "no token in output");
  }
  const env = await runCli(["browse", path], { cwd: dir, env: { COURIER_BROWSE_TOKEN: secret } });
  assert.equal(env.code, 2, "$COURIER_BROWSE_TOKEN is read and checked like the others");
  assert.match(env.stderr, /the token may hold only/);
  assert.ok(!env.stderr.includes(secret));
});

Deno.test("courier browse: --token-file guards the API; the token is in no output or argv", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_cli_" });
  const path = await makeFixtureDb(dir);
  const token = "f1le-token_value.ok";
  await Deno.writeTextFile(`${dir}/token`, `  ${token}  \r\nsecond line ignored\n`);
  const server = await startBrowseProcess([path, "--token-file", `${dir}/token`, "--cors", "*"]);
  try {
    assert.ok(!server.url.includes(token));
    const argv = await Deno.readTextFile(`/proc/${server.pid}/cmdline`);
    assert.ok(!argv.includes(token), "not visible in ps");
    const none = await fetch(new URL("/api/tables", server.url));
    assert.equal(none.status, 401);
    await none.body?.cancel();
    const ok = await fetch(new URL("/api/tables", server.url), {
      headers: { Authorization: `Bearer ${token}`, Origin: "http://any.example" },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("access-control-allow-origin"), "*", "--cors '*' with a token");
    assert.ok(((await ok.json()) as string[]).includes("items"));
  } finally {
    const status = await server.stop();
    assert.equal(status.code, 0);
  }
});

Deno.test("courier browse --help lists the flags", async () => {
  const r = await runCli(["browse", "--help"]);
  assert.equal(r.code, 0);
  for (
    const flag of [
      "--host",
      "--port",
      "--write",
      "--token",
      "--token-file",
      "$COURIER_BROWSE_TOKEN",
      "--timeout",
      "--max-rows",
      "--cors",
      "--auth-token",
    ]
  ) {
    assert.ok(r.stdout.includes(flag), flag);
  }
  assert.match(r.stdout, /--cors ORIGIN/);
  assert.match(r.stdout, /'\*' allows every site and is refused without a token/);
  assert.match(r.stdout, /shows in ps[^]*prefer --token-file or \$COURIER_BROWSE_TOKEN/);
});
