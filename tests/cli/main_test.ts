/** The executable's own surface: help, version, unknown commands, exit codes. */
import { COMMANDS } from "../../src/cli/commands.ts";
import { VERSION } from "../../src/version.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { runCli } from "../support/cli.ts";

Deno.test("cli: --version prints the version", async () => {
  for (const flag of ["--version", "-V"]) {
    const r = await runCli([flag]);
    assertEquals([r.code, r.stdout.trim()], [0, `courier ${VERSION}`]);
  }
});

Deno.test("cli: --help lists exactly the registered commands", async () => {
  const r = await runCli(["--help"]);
  assertEquals(r.code, 0);
  const listed = [...r.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
  assertEquals(listed, COMMANDS.map((c) => c.name));
  assert(!/not yet|todo|coming soon/i.test(r.stdout), "no placeholders");
});

Deno.test("cli: every command answers --help with its usage", async () => {
  for (const command of COMMANDS) {
    const r = await runCli([command.name, "--help"]);
    assertEquals(r.code, 0, command.name);
    assertMatch(r.stdout, new RegExp(`^Usage: courier ${command.name}`));
  }
});

Deno.test("cli: unknown commands and flags are usage errors (exit 2, one line)", async () => {
  const unknown = await runCli(["frobnicate"]);
  assertEquals(unknown.code, 2);
  assertEquals(
    unknown.stderr.trim(),
    `courier: unknown command "frobnicate" (see 'courier --help')`,
  );
  // A likely typo gets its correction, for commands and for options.
  const cases: [string[], string][] = [
    [
      ["forwrd"],
      `courier: unknown command "forwrd"; did you mean "forward"? (see 'courier --help')`,
    ],
    // What other tools print their version with.
    [
      ["version"],
      `courier: unknown command "version"; did you mean --version? (see 'courier --help')`,
    ],
    [["-v"], `courier: unknown option -v; did you mean --version? (see 'courier --help')`],
    [
      ["vesrion"],
      `courier: unknown command "vesrion"; did you mean --version? (see 'courier --help')`,
    ],
    [
      ["stauts", "--json"],
      `courier: unknown command "stauts"; did you mean "status"? (see 'courier --help')`,
    ],
    [
      ["help", "valdate"],
      `courier: unknown command "valdate"; did you mean "validate"? (see 'courier --help')`,
    ],
    [
      ["validate", "--jsn"],
      "courier validate: unknown option --jsn; did you mean --json? (see 'courier validate --help')",
    ],
    [
      ["once", "--dryrun"],
      "courier once: unknown option --dryrun; did you mean --dry-run? (see 'courier once --help')",
    ],
    [
      ["forward", "--metric=:9464"],
      "courier forward: unknown option --metric; did you mean --metrics? (see 'courier forward --help')",
    ],
    [
      ["--jsn"],
      "courier: unknown option --jsn (options go after the command; see 'courier --help')",
    ],
    [
      ["--verison"],
      "courier: unknown option --verison; did you mean --version? (options go after the command; see 'courier --help')",
    ],
  ];
  for (const [args, line] of cases) {
    const r = await runCli(args);
    assertEquals([r.code, r.stdout, r.stderr], [2, "", `${line}\n`], args.join(" "));
  }
  const flag = await runCli(["validate", "--colour"]);
  assertEquals(flag.code, 2);
  assertEquals(flag.stderr.trim().split("\n").length, 1, flag.stderr);
  assertMatch(flag.stderr, /courier validate: .*--colour/);
  const format = await runCli(["--log-format", "xml", "schema"]);
  assertEquals(format.code, 2);
  assertMatch(format.stderr, /--log-format must be "text" or "json"/);
});

Deno.test("cli: no arguments is one usage line naming the commands, exit 2", async () => {
  const r = await runCli([]);
  assertEquals(r.code, 2);
  assertEquals(
    r.stderr,
    `courier: no command given: one of ${COMMANDS.map((c) => c.name).join(", ")} ` +
      "(see 'courier --help')\n",
  );
});

Deno.test("cli: every usage error of every command is one line", async () => {
  const cases = [
    ["forward", "--grace", "soon"],
    ["forward", "--metrics", "nowhere"],
    ["once", "--concurrency", "0"],
    ["once", "--log-level", "loud"],
    ["status", "extra"],
    ["browse", "--port", "99999"],
    ["browse", "a.db", "b.db"],
    ["validate", "-c"],
    ["schema", "--json"],
    ["preview"],
    ["completions"],
    ["help", "a", "b"],
    ["--log-format", "xml", "schema"],
  ];
  for (const args of cases) {
    const r = await runCli(args);
    assertEquals(r.code, 2, args.join(" "));
    assertEquals(r.stderr.trimEnd().split("\n").length, 1, `${args.join(" ")}: ${r.stderr}`);
    assertMatch(r.stderr, /^courier/);
  }
});

Deno.test("cli: the config path comes from -c, else $COURIER_CONFIG, else ./config.yml", async () => {
  const dir = await Deno.makeTempDir();
  const config = `messenger_auth_token: "1:a"\nfeeds:\n  - name: n\n    channel: "@ab"\n` +
    `    url: http://127.0.0.1/f\n    cron: "* * * * *"\n    type: rss\n`;
  await Deno.writeTextFile(`${dir}/config.yml`, config);
  await Deno.writeTextFile(`${dir}/other.yml`, config.replace("name: n", "name: other"));
  const byCwd = await runCli(["validate"], { cwd: dir });
  assertEquals(byCwd.code, 0, byCwd.stderr);
  assertMatch(byCwd.stdout, /feed n\n/);
  const byEnv = await runCli(["validate"], { cwd: dir, env: { COURIER_CONFIG: "other.yml" } });
  assertMatch(byEnv.stdout, /feed other\n/);
  const byFlag = await runCli(["validate", "-c", "config.yml"], {
    cwd: dir,
    env: { COURIER_CONFIG: "other.yml" },
  });
  assertMatch(byFlag.stdout, /feed n\n/);
  const missing = await runCli(["validate"], { cwd: await Deno.makeTempDir() });
  assertEquals(missing.code, 2);
  assertEquals(
    missing.stderr.trim(),
    "no config.yml in this directory; name one with -c FILE or $COURIER_CONFIG " +
      "(examples/config.yml is a commented start)",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("cli: validate --json prints the effective settings without secrets", async () => {
  const r = await runCli(["validate", "--json", "-c", "examples/config.yml"], {
    cwd: new URL("../..", import.meta.url).pathname,
  });
  assertEquals(r.code, 0, r.stderr);
  const view = JSON.parse(r.stdout);
  assertEquals(view.messenger_auth_token, "[redacted]");
  assertEquals(view.messenger_proxy, "http://courier:***@127.0.0.1:3128");
  // Absolute, as README's warning asks: cron and systemd start elsewhere.
  assertEquals(view.data_dir, "/var/lib/courier");
  assertEquals(view.feeds.map((f: { first_time_limit: number }) => f.first_time_limit), [
    10,
    3,
    -1,
    10,
  ]);
  // One time style with `status --json`: ISO 8601 in UTC.
  assertMatch(view.feeds[0].next_run, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
  assert(!r.stdout.includes("s3cret") && !r.stdout.includes("AAExampleToken"));
});

/** The keys of one field table of the config spec (`| \`key\` | ...`), in order. */
async function specKeys(heading: string): Promise<string[]> {
  const spec = await Deno.readTextFile(
    new URL("../../../shared/spec/feed-forwarder-config.md", import.meta.url),
  ).catch(() => null);
  const text = spec ?? "";
  const start = text.indexOf(heading);
  const section = text.slice(start, text.indexOf("\n#", start + heading.length));
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
}

Deno.test("cli: validate --json spells every key as the config file does", async () => {
  const r = await runCli(["validate", "--json", "-c", "examples/config.yml"], {
    cwd: new URL("../..", import.meta.url).pathname,
  });
  assertEquals(r.code, 0, r.stderr);
  const view = JSON.parse(r.stdout);
  // The spec's tables, as of this writing; the spec is read too when it is at hand.
  const top = ["messenger_auth_token", "feeds", "proxy", "messenger_proxy", "data_dir"]
    .concat(["last_loaded_path", "db_dir", "first_time_limit", "refs"]);
  const feed = ["name", "channel", "url", "cron", "type", "rhash", "proxy", "title"]
    .concat(["first_time_limit"]);
  const fromSpec = [await specKeys("### Top level"), await specKeys("### Feed object")];
  if (fromSpec[0].length > 0) assertEquals(fromSpec, [top, feed]);
  // `config` (the file read) and `next_run` are derived, not settings.
  const extra = (keys: string[], known: string[], derived: string[]) =>
    keys.filter((k) => !known.includes(k) && !derived.includes(k));
  // Keys beyond the spec: per feed (issue 29), and top-level (issue 26; issue 29's defaults
  // show in each feed's).
  const feedKeys = [...feed, "filter", "silent", "topic", "template"];
  assertEquals(
    extra(Object.keys(view), top, [
      "config",
      "messenger_auth_token_file",
      "messenger_auth_token_source",
      // Keys added after the spec (issue 25): the state on a libSQL server.
      "db_url",
      "db_auth_token_file",
    ]),
    [],
  );
  for (const f of view.feeds) assertEquals(extra(Object.keys(f), feedKeys, ["next_run"]), []);
  assertEquals(view.feeds[0].filter.exclude, ["sponsored", "/^(ad|advert(isement)?):/i"]);
  assertEquals(view.feeds[3].topic, 42);
  assertEquals(view.feeds[0].title, "Link");
  // Every key of the file is shown, but `refs` (anchors only) and `feeds` by its items.
  assertEquals(top.filter((k) => !(k in view)), ["refs"]);
  assertEquals(feedKeys.filter((k) => !(k in view.feeds[3])), []);
  assert(Array.isArray(view.feeds[0].url));
});

Deno.test("cli: a config error in another command's path is also one line per problem", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/bad.yml`, "feeds: 3\n");
  const r = await runCli(["validate", "-c", `${dir}/bad.yml`]);
  assertEquals(r.code, 2);
  assertEquals(r.stderr.trim().split("\n"), [
    `${dir}/bad.yml:1:1: messenger_auth_token: missing required key ` +
    "(or messenger_auth_token_file, or $COURIER_MESSENGER_AUTH_TOKEN(_FILE))",
    `${dir}/bad.yml:1:8: feeds: must be a list of feeds`,
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("cli: an error carrying its exit code ends the command with it, in one line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await runCli(["once", "-c", "missing.yml"], { cwd: dir });
    assertEquals(r.code, 2);
    assertEquals(r.stderr, "courier once: missing.yml: cannot read config: no such file\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: a first run without config.yml says what to do next, for every command that reads it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const hint = "no config.yml in this directory; name one with -c FILE or $COURIER_CONFIG " +
      "(examples/config.yml is a commented start)";
    for (const command of ["once", "forward", "status"]) {
      const r = await runCli([command], { cwd: dir });
      assertEquals([r.code, r.stderr], [2, `courier ${command}: ${hint}\n`]);
    }
    const browse = await runCli(["browse"], { cwd: dir });
    assertEquals([browse.code, browse.stderr], [
      2,
      `courier browse: no DATABASE given (courier browse FILE.db) and ${hint}\n`,
    ]);
    // A path the user named is not the default: it is reported as given, with its source.
    const byEnv = await runCli(["once"], { cwd: dir, env: { COURIER_CONFIG: "x.yml" } });
    assertEquals(
      [byEnv.code, byEnv.stderr],
      [2, "courier once: x.yml (from $COURIER_CONFIG): cannot read config: no such file\n"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
