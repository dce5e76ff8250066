/**
 * A place to run courier commands as a user would: a temporary directory with a config, local
 * feeds (once_feeds.ts) and the fake Bot API. Every output is checked for the token.
 */
import assert from "node:assert/strict";
import { stringify } from "./yaml.ts";
import { type CliResult, runCli } from "./cli.ts";
import { type FakeBotApi, type FakeBotApiOptions, startFakeBotApi } from "./fake_bot_api.ts";
import { type FeedServer, startFeedServer } from "./once_feeds.ts";

export const TOKEN = "123456:TEST-token_abc";

export interface CliEnv {
  dir: string;
  config: string;
  feeds: FeedServer;
  bot: FakeBotApi;
  /** Writes the config: the token and `<dir>/data` as data_dir, then `doc`. */
  writeConfig(doc: Record<string, unknown>): Promise<void>;
  /** `courier <command> -c <config> ...args` (once and forward also get the fake's URL). */
  run(command: string, ...args: string[]): Promise<CliResult>;
}

/** Writes a config at `config`: the token and `<dir>/data` as data_dir, then `doc`. */
export async function writeTestConfig(
  config: string,
  dir: string,
  doc: Record<string, unknown>,
): Promise<void> {
  await Deno.writeTextFile(
    config,
    stringify({ messenger_auth_token: TOKEN, data_dir: `${dir}/data`, ...doc }),
  );
}

export async function withCliEnv(
  fn: (env: CliEnv) => Promise<void>,
  botOptions: FakeBotApiOptions = {},
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null, ...botOptions });
  const config = `${dir}/config.yml`;
  const env: CliEnv = {
    dir,
    config,
    feeds,
    bot,
    writeConfig: (doc) => writeTestConfig(config, dir, doc),
    async run(command, ...args) {
      const api = command === "once" || command === "forward" ? ["--messenger-api", bot.url] : [];
      const r = await runCli([command, "-c", config, ...api, ...args], { cwd: dir });
      for (const text of [r.stdout, r.stderr]) {
        assert.ok(!text.includes(TOKEN) && !text.includes("TEST-token"), `token leaked:\n${text}`);
        assert.ok(!/^\s+at /m.test(text), `a stack trace:\n${text}`);
      }
      return r;
    },
  };
  try {
    await fn(env);
  } finally {
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
}
