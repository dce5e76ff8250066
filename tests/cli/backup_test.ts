/**
 * README's backup recipe, tried on a running forwarder: `sqlite3 courier.db ".backup FILE"` and
 * `VACUUM INTO` copy a consistent database (the entries still in the WAL included) while
 * `courier forward` holds it open, and a restored copy knows what was sent: nothing is sent
 * twice.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { runCli } from "../support/cli.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { postItems, startFeedServer } from "../support/once_feeds.ts";
import { startForward } from "../support/forward_process.ts";
import { requireTool } from "../support/tools.ts";

const TOKEN = "123456:TEST-token_backup";

async function sqlite(db: string, sql: string): Promise<string> {
  const out = await new Deno.Command("sqlite3", {
    args: [db, sql],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("backup: .backup and VACUUM INTO while forward runs give a whole database; restored, nothing is sent twice", async () => {
  if (!(await requireTool("sqlite3", "the backup test", ["-version"]))) return;
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  feeds.set("/news.xml", postItems(["a", "b", "c"]));
  const config = `${dir}/config.yml`;
  await Deno.writeTextFile(
    config,
    stringify({
      messenger_auth_token: TOKEN,
      data_dir: `${dir}/data`,
      feeds: [{
        name: "news",
        channel: "@news_chan",
        url: feeds.url("/news.xml"),
        cron: "* * * * *",
        type: "rss",
      }],
    }),
  );
  const db = `${dir}/data/feed_data/courier.db`;
  const forward = startForward(["-c", config, "--messenger-api", bot.url]);
  let stopped = false;
  try {
    try {
      await forward.until('msg="feed sent" feed=news sent=3');
      // forward runs and holds the database; its last writes may still be in the WAL.
      await sqlite(db, `.backup '${dir}/backup.db'`);
      await sqlite(db, `VACUUM INTO '${dir}/vacuumed.db'`);
      for (const copy of [`${dir}/backup.db`, `${dir}/vacuumed.db`]) {
        assert.equal(await sqlite(copy, "PRAGMA integrity_check"), "ok", copy);
        assert.equal(await sqlite(copy, "PRAGMA user_version"), String(SCHEMA_VERSION), copy);
        assert.equal(
          await sqlite(
            copy,
            "SELECT count(*) FROM entries WHERE feed = 'news' AND status = 'sent'",
          ),
          "3",
          copy,
        );
      }
      const { code, log } = await forward.stop();
      stopped = true;
      assert.equal(code, 0, log);
    } finally {
      if (!stopped) await forward.stop();
    }
    // Restore: the database replaced by the backup (its WAL and the last-success file gone too,
    // as after a lost disk), then a run: the entries are known, none is sent again.
    await Deno.remove(`${dir}/data`, { recursive: true });
    await Deno.mkdir(`${dir}/data/feed_data`, { recursive: true });
    await Deno.copyFile(`${dir}/backup.db`, db);
    assert.equal(bot.messages("@news_chan").length, 3);
    feeds.set("/news.xml", postItems(["a", "b", "c", "d"]));
    const once = await runCli(["once", "-c", config, "--messenger-api", bot.url]);
    assert.equal(once.code, 0, once.stderr);
    // Only the entry that is new since the backup; a, b and c are known as sent.
    assert.match(once.stdout, /^news\s+4\s+1\s+1\s+0$/m);
    assert.deepEqual(bot.messages("@news_chan").map((m) => m.bold[0]), [
      "Post a",
      "Post b",
      "Post c",
      "Post d",
    ]);
  } finally {
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});
