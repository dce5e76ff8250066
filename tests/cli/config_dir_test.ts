/**
 * Relative paths in the config are the config file's (as Prometheus reads rule_files), not the
 * working directory's: one config run from two directories keeps one state and posts each
 * entry once. The real CLI, a local feed server and the fake Bot API.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { postItems, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";

Deno.test("config paths: a config without data_dir run from two directories posts once", async () => {
  const home = await Deno.makeTempDir();
  const elsewhere = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  try {
    feeds.set("/news.xml", postItems(["a", "b", "c"]));
    const config = `${home}/etc/config.yml`;
    await Deno.mkdir(`${home}/etc`);
    await Deno.writeTextFile(
      config,
      stringify({
        messenger_auth_token: TOKEN,
        feeds: [{
          name: "news",
          channel: "@news_chan",
          url: feeds.url("/news.xml"),
          cron: "*/5 * * * *",
          type: "rss",
        }],
      }),
    );
    for (const cwd of [home, elsewhere, `${home}/etc`]) {
      const r = await runCli(["once", "-c", config, "--messenger-api", bot.url], { cwd });
      assert.equal(r.code, 0, r.stderr);
    }
    assert.deepEqual(bot.messages("@news_chan").map((m) => m.bold[0]), [
      "Post a",
      "Post b",
      "Post c",
    ]);
    // The state is beside the config, whichever directory the runs started in.
    assert.ok((await Deno.stat(`${home}/etc/feed_data/courier.db`)).isFile);
    await assert.rejects(Deno.stat(`${elsewhere}/feed_data`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(`${home}/feed_data`), Deno.errors.NotFound);
  } finally {
    await feeds.close();
    await bot.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("config paths: validate shows every relative path from the config's directory", async () => {
  const dir = await Deno.makeTempDir();
  const other = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/conf/secrets`, { recursive: true });
    await Deno.writeTextFile(`${dir}/conf/secrets/token`, `${TOKEN}\n`, { mode: 0o600 });
    await Deno.writeTextFile(
      `${dir}/conf/c.yml`,
      stringify({
        messenger_auth_token_file: "secrets/token",
        data_dir: "state",
        db_dir: "../db",
        last_loaded_path: "./last.yml",
        feeds: [{
          name: "news",
          channel: "@news_chan",
          url: "http://127.0.0.1:9/x.xml",
          cron: "*/5 * * * *",
          type: "rss",
        }],
      }),
    );
    // The config named relatively, from another directory: still the config's own paths.
    const r = await runCli(["validate", "--json", "-c", `../${dir.split("/").pop()}/conf/c.yml`], {
      cwd: other,
    });
    assert.equal(r.code, 0, r.stderr);
    const view = JSON.parse(r.stdout);
    assert.equal(view.config, `${dir}/conf/c.yml`);
    assert.equal(view.data_dir, `${dir}/conf/state`);
    assert.equal(view.db_dir, `${dir}/db`);
    assert.equal(view.last_loaded_path, `${dir}/conf/last.yml`);
    assert.equal(view.messenger_auth_token_file, `${dir}/conf/secrets/token`);
    const text = await runCli(["validate", "-c", `${dir}/conf/c.yml`], { cwd: "/" });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^  data_dir\\s+${dir}/conf/state$`, "m"));
    assert.match(text.stdout, new RegExp(`^  database\\s+${dir}/db/courier\\.db$`, "m"));
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(other, { recursive: true });
  }
});
