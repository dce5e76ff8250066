/**
 * The bot token from the environment, a file or a systemd credential, through the real CLI:
 * one precedence, `validate` naming the source and never the token, and one clear line for a
 * token file that is missing or empty (a warning for one every user can read).
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { runCli } from "../support/cli.ts";

const FEEDS = `feeds:\n  - name: n\n    channel: "@abc"\n    url: http://127.0.0.1/f\n` +
  `    cron: "* * * * *"\n    type: rss\n`;
const TOKENS = {
  config: "111:fromConfigToken",
  configFile: "222:fromConfigFileToken",
  credential: "333:fromCredentialToken",
  envFile: "444:fromEnvFileToken",
  env: "555:fromEnvToken",
};

async function setUp() {
  const dir = await Deno.makeTempDir();
  const write = async (name: string, text: string, mode = 0o600) => {
    await Deno.writeTextFile(`${dir}/${name}`, text);
    await Deno.chmod(`${dir}/${name}`, mode);
    return `${dir}/${name}`;
  };
  await Deno.mkdir(`${dir}/credentials`);
  return {
    dir,
    write,
    plain: await write("plain.yml", FEEDS),
    withToken: await write("token.yml", `messenger_auth_token: "${TOKENS.config}"\n${FEEDS}`),
    withFile: await write("file.yml", `messenger_auth_token_file: config-token\n${FEEDS}`),
    configFile: await write("config-token", `${TOKENS.configFile}\n`),
    credential: await write("credentials/messenger_auth_token", `${TOKENS.credential}\n`),
    envFile: await write("env-token", `${TOKENS.envFile}\r\n`),
  };
}

function assertNoToken(text: string): void {
  for (const token of Object.values(TOKENS)) {
    assert(!text.includes(token.split(":")[1]), `leaks a token: ${text}`);
  }
}

/** The token source `validate --json` reports. */
async function sourceOf(config: string, env: Record<string, string>, cwd?: string) {
  const r = await runCli(["validate", "--json", "-c", config], { env, cwd });
  assertEquals(r.code, 0, r.stderr);
  assertNoToken(r.stdout + r.stderr);
  const view = JSON.parse(r.stdout);
  assertEquals(view.messenger_auth_token, "[redacted]");
  return view.messenger_auth_token_source as string;
}

Deno.test("token: each source in the documented precedence, named by validate", async () => {
  const t = await setUp();
  const credentials = { CREDENTIALS_DIRECTORY: `${t.dir}/credentials` };
  const envFile = { COURIER_MESSENGER_AUTH_TOKEN_FILE: t.envFile };
  const env = { COURIER_MESSENGER_AUTH_TOKEN: TOKENS.env };
  // The config alone, by value or by file (relative to the working directory).
  assertEquals(await sourceOf(t.withToken, {}), "config (messenger_auth_token)");
  assertEquals(
    await sourceOf(t.withFile, {}, t.dir),
    `file ${t.configFile} (messenger_auth_token_file)`,
  );
  // Each source of the environment wins over everything after it.
  assertEquals(
    await sourceOf(t.withFile, credentials, t.dir),
    "systemd credential messenger_auth_token",
  );
  assertEquals(
    await sourceOf(t.withToken, { ...credentials, ...envFile }),
    `file ${t.envFile} ($COURIER_MESSENGER_AUTH_TOKEN_FILE)`,
  );
  assertEquals(
    await sourceOf(t.withToken, { ...credentials, ...envFile, ...env }),
    "$COURIER_MESSENGER_AUTH_TOKEN",
  );
  // The config may then omit the token; an empty variable counts as unset.
  assertEquals(await sourceOf(t.plain, env), "$COURIER_MESSENGER_AUTH_TOKEN");
  const unset = await runCli(["validate", "-c", t.plain], {
    env: { COURIER_MESSENGER_AUTH_TOKEN: "" },
  });
  assertEquals(unset.code, 2);
  assertEquals(
    unset.stderr.trim(),
    `${t.plain}:1:1: messenger_auth_token: missing required key ` +
      "(or messenger_auth_token_file, or $COURIER_MESSENGER_AUTH_TOKEN(_FILE))",
  );
  // The text output says it too.
  const text = await runCli(["validate", "-c", t.plain], { env: envFile });
  assertMatch(
    text.stdout,
    /token +\[redacted\] \(from file \S+env-token \(\$COURIER_MESSENGER_AUTH_TOKEN_FILE\)\)/,
  );
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("token: a missing, empty, ill-formed or doubly given token is one line, exit 2", async () => {
  const t = await setUp();
  const empty = await t.write("empty", "\n\n");
  const bad = await t.write("bad", "not-a-token-SECRETVALUE\n");
  const both = await t.write(
    "both.yml",
    `messenger_auth_token: "${TOKENS.config}"\nmessenger_auth_token_file: x\n${FEEDS}`,
  );
  const cases: [string[], Record<string, string>, string][] = [
    [
      ["validate", "-c", t.plain],
      { COURIER_MESSENGER_AUTH_TOKEN_FILE: `${t.dir}/missing` },
      `bot token file ${t.dir}/missing ($COURIER_MESSENGER_AUTH_TOKEN_FILE): no such file`,
    ],
    [
      ["validate", "-c", t.plain],
      { COURIER_MESSENGER_AUTH_TOKEN_FILE: empty },
      `bot token file ${empty} ($COURIER_MESSENGER_AUTH_TOKEN_FILE): the first line holds no token`,
    ],
    [
      ["validate", "-c", t.plain],
      { COURIER_MESSENGER_AUTH_TOKEN_FILE: bad },
      `bot token file ${bad} ($COURIER_MESSENGER_AUTH_TOKEN_FILE): must look like "<digits>:<token>" as given by @BotFather`,
    ],
    [
      ["validate", "-c", t.plain],
      { COURIER_MESSENGER_AUTH_TOKEN: "SECRETVALUE" },
      'bot token $COURIER_MESSENGER_AUTH_TOKEN: must look like "<digits>:<token>" as given by @BotFather',
    ],
    [
      ["validate", "-c", both],
      {},
      `${both}:2:1: messenger_auth_token_file: give messenger_auth_token or messenger_auth_token_file, not both`,
    ],
    // Every command reads the token the same way; `once` says which command.
    [
      ["once", "-c", t.plain],
      { COURIER_MESSENGER_AUTH_TOKEN_FILE: empty },
      `courier once: bot token file ${empty} ($COURIER_MESSENGER_AUTH_TOKEN_FILE): the first line holds no token`,
    ],
  ];
  for (const [args, env, line] of cases) {
    const r = await runCli(args, { env });
    assertEquals([r.code, r.stderr.trim()], [2, line]);
    assert(!r.stderr.includes("SECRETVALUE"), r.stderr);
    assertEquals(r.stdout, "");
  }
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("token: a token file every user can read is used, with one warning", async () => {
  if (Deno.build.os === "windows") return;
  const t = await setUp();
  await Deno.chmod(t.configFile, 0o644);
  const r = await runCli(["validate", "-c", t.withFile], { cwd: t.dir });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(
    r.stderr.trim(),
    `warning: bot token file ${t.configFile} (messenger_auth_token_file): every user of this ` +
      `machine can read it (chmod o-r ${t.configFile})`,
  );
  assertNoToken(r.stdout + r.stderr);
  await Deno.chmod(t.configFile, 0o640);
  const quiet = await runCli(["validate", "-c", t.withFile], { cwd: t.dir });
  assertEquals([quiet.code, quiet.stderr], [0, ""]);
  await Deno.remove(t.dir, { recursive: true });
});
