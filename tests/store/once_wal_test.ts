/**
 * The end of `courier once` checkpoints the WAL: the state a user backs up, copies or opens
 * elsewhere is courier.db alone, and courier.db-wal does not grow from one cron run to the next.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { Store } from "../../src/store/db.ts";
import { runCli } from "../support/cli.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";

async function walSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

Deno.test("after once, courier.db-wal is empty or absent and courier.db alone holds every sent entry (and once pruned)", async () => {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, limits: null });
  try {
    const items = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `e${i}`, title: `Post ${i}`, minute: i }));
    const config = `${dir}/config.yml`;
    await Deno.writeTextFile(
      config,
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: `${dir}/data`,
        feeds: ["one", "two"].map((name) => ({
          name,
          channel: `@${name}_chan`,
          url: feeds.url(`/${name}.xml`),
          cron: "*/5 * * * *",
          type: "rss",
          first_time_limit: -1,
        })),
      }),
    );
    const dbDir = `${dir}/data/feed_data`;
    for (const n of [5, 8]) {
      feeds.set("/one.xml", items(n));
      feeds.set("/two.xml", items(n + 1));
      const r = await runCli(["once", "-c", config, "--messenger-api", bot.url], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(await walSize(`${dbDir}/courier.db-wal`), 0);
    }
    assert.equal(bot.messages().length, 8 + 9);

    const copy = await Deno.makeTempDir();
    try {
      await Deno.copyFile(`${dbDir}/courier.db`, `${copy}/courier.db`);
      const alone = (await Store.open(copy, { readOnly: true }))!;
      try {
        const rows = await alone.query(
          "SELECT feed, count(*) FROM entries WHERE status = 'sent' GROUP BY feed ORDER BY feed",
        );
        assert.deepEqual(rows, [["one", 8], ["two", 9]]);
        // once prunes when the last prune is a day old: the first run did, and recorded when.
        const pruned = await alone.query("SELECT value FROM meta WHERE key = 'pruned_at'");
        assert.equal(pruned.length, 1);
      } finally {
        alone.close();
      }
    } finally {
      await Deno.remove(copy, { recursive: true });
    }
  } finally {
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});
