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
  const dir = await Deno.makeTempDir({ prefix: "browse_cli_" });
  await Deno.mkdir(`${dir}/data/feed_data`, { recursive: true });
  await makeFixtureDb(`${dir}/data/feed_data`);
  await Deno.rename(`${dir}/data/feed_data/fixture.db`, `${dir}/data/feed_data/courier.db`);
  const config = `${dir}/config.yml`;
  await Deno.writeTextFile(
    config,
    `messenger_auth_token: "123456789:AAExampleTokenDoNotUse_0123456789ab"\ndata_dir: ${dir}/data\nfeeds:\n  - name: one\n    channel: "@chan"\n    url: https://example.org/feed.xml\n    cron: "*/5 * * * *"\n    type: rss\n`,
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
    [[path, "--host", "0.0.0.0", "--port", "0"], /without --token/],
    [[`${dir}/missing.db`], /database not found/],
    [[path, "--timeout", "soon"], /--timeout/],
    [[path, "--max-rows", "0"], /--max-rows/],
    [[path, "--port", "70000"], /--port/],
    [[path, "--bogus"], /bogus/],
    [["-c", `${dir}/nope.yml`], /no config|nope\.yml/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runCli(["browse", ...args], { cwd: dir });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
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
      "--timeout",
      "--max-rows",
      "--cors",
      "--auth-token",
    ]
  ) {
    assert.ok(r.stdout.includes(flag), flag);
  }
});
