/**
 * A token the Bot API refuses (401): the line says where this token came from and what changes
 * it, as the source has it (a reload cannot change an environment variable). The real CLI, a
 * local feed server and the fake Bot API, which answers 401 to any other token.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";
import { withCliEnv } from "../support/cli_env.ts";
import { postItems } from "../support/once_feeds.ts";

const WRONG = "999999:WRONG-token_xyz";

function feedsOf(url: string) {
  return [{ name: "news", channel: "@news_chan", url, cron: "*/5 * * * *", type: "rss" }];
}

Deno.test("token refused: the 401 line names the token's source and what changes it", () =>
  withCliEnv(async (env) => {
    env.feeds.set("/news.xml", postItems(["a"]));
    const feeds = feedsOf(env.feeds.url("/news.xml"));
    const once = (extra: Record<string, string>) =>
      runCli(["once", "-c", env.config, "--messenger-api", env.bot.url], { env: extra });
    const check = (r: { code: number; stdout: string; stderr: string }, line: string) => {
      assert.equal(r.code, 1, r.stderr);
      assert.ok(!(r.stdout + r.stderr).includes("WRONG-token"), "the token leaked");
      const lines = r.stderr.split("\n").filter((l) => l.startsWith("courier once: "));
      assert.deepEqual(lines, [`courier once: ${line}`], r.stderr);
    };
    // The config holds the right token; the environment's wins, and only a restart changes it.
    await env.writeConfig({ feeds });
    check(
      await once({ COURIER_MESSENGER_AUTH_TOKEN: WRONG }),
      "messenger rejected the bot token from $COURIER_MESSENGER_AUTH_TOKEN (401 Unauthorized); " +
        "set the right one in $COURIER_MESSENGER_AUTH_TOKEN then restart courier (a reload " +
        "keeps what it was started with)",
    );
    // The config's own token: fixed in the config, which a reload reads again.
    await Deno.writeTextFile(
      env.config,
      stringify({ messenger_auth_token: WRONG, data_dir: `${env.dir}/data`, feeds }),
    );
    check(
      await once({}),
      "messenger rejected the bot token from config (messenger_auth_token) (401 Unauthorized); " +
        `fix messenger_auth_token in ${env.config} then reload a running forward (SIGHUP)`,
    );
    // A systemd credential: changed where the unit takes it from, and the service restarted.
    await Deno.mkdir(`${env.dir}/creds`);
    await Deno.writeTextFile(`${env.dir}/creds/messenger_auth_token`, `${WRONG}\n`, {
      mode: 0o600,
    });
    check(
      await once({ CREDENTIALS_DIRECTORY: `${env.dir}/creds` }),
      "messenger rejected the bot token from systemd credential messenger_auth_token (401 " +
        "Unauthorized); write the right one in the file the unit's " +
        "LoadCredential=messenger_auth_token: names, then restart the service (a reload keeps " +
        "what it was started with)",
    );
    // A token file: written again, read again on reload.
    await Deno.writeTextFile(`${env.dir}/token`, `${WRONG}\n`, { mode: 0o600 });
    await Deno.writeTextFile(
      env.config,
      stringify({ messenger_auth_token_file: "token", data_dir: `${env.dir}/data`, feeds }),
    );
    check(
      await once({}),
      `messenger rejected the bot token from file ${env.dir}/token (messenger_auth_token_file) ` +
        `(401 Unauthorized); write the right one in ${env.dir}/token then reload a running ` +
        "forward (SIGHUP)",
    );
    assert.equal(env.bot.messages().length, 0);
    // The right token still goes through.
    await env.writeConfig({ feeds });
    assert.equal((await once({})).code, 0);
    assert.equal(env.bot.messages().length, 1);
  }));
