/**
 * The database server stopped for two minutes and restarted, with a real `courier forward`
 * on db_url, the libSQL project's Hrana server, the fake Bot API and a feed server: every
 * entry published before, during and after the outage is posted, none twice; each run during
 * the outage fails with one line naming the database's URL, never its token; the process
 * lives on and stops cleanly.
 *
 * Only courier runs under libfaketime, its clocks sped up (tests/support/faketime.ts), so its
 * minutes pass in seconds while the servers keep real time. What that does to courier's own
 * time limits, which run on its fast clock against servers that answer in real time:
 * - a feed's fetch: --fetch-timeout 600 makes it a minute of real time;
 * - a Bot API request: 30 s of the fast clock, 3 s real. A spurious timeout would retry a
 *   message the fake took and post it twice, so the fake answers at once and the factor stays
 *   at 10 (each of courier's minutes ~6 s real, the test ~20 s of real waiting);
 * - the database client has no time limit: a stopped server refuses the connection at once;
 * - the pacer's 20 a minute is the fast clock's minute, which the fake, judging by real time,
 *   would take for a burst: the fake's limits are off (a few messages a channel anyway).
 * The lease lasts 20 of courier's minutes, so the process keeps its channels and runs their
 * feeds every minute through the outage: each run is a failure line to wait for (three of a
 * feed's runs in a row fail: two minutes have passed). With the default 60 s lease the process
 * stops running the channels after 45 s instead; tests/forward/db_outage_test.ts drives that.
 * Every wait is for a log line, never a sleep.
 */
import assert from "node:assert/strict";
import { stateRows } from "../support/state_rows.ts";
import { stringify } from "../support/yaml.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { faketimeMissing, fastClockEnv } from "../support/faketime.ts";
import { type ForwardProcess, startForward } from "../support/forward_process.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";
import { postItems, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";
const DB_TOKEN = "outage-process-db-token-31";
const FACTOR = 10;
const FEEDS = ["alpha", "beta"];
const missing = hranaMissing() ?? faketimeMissing();

/** Entries `<feed>1`..`<feed>n`: each publication adds to what the feed held. */
const items = (feed: string, n: number) =>
  postItems(Array.from({ length: n }, (_, i) => `${feed}${i + 1}`));

/**
 * The messages a feed's runs sent, by their "feed sent" lines: each comes after its run's last
 * record, so nothing counted is still in flight.
 */
function sentIn(log: string, feed: string): number {
  let sent = 0;
  for (const m of log.matchAll(new RegExp(`msg="feed sent" feed=${feed} sent=(\\d+)`, "g"))) {
    sent += Number(m[1]);
  }
  return sent;
}

/** The entries the state records as sent, `feed/entry`, sorted. */
function sentRows(file: string): string[] {
  return stateRows(file, "SELECT feed, entry_id FROM entries WHERE status = 'sent'")
    .map((row) => `${row.feed}/${row.entry_id}`).sort();
}

Deno.test({
  name: "forward: the database server down two of the process's minutes: nothing lost or doubled",
  ignore: missing !== null,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/server.db`;
    let server = await startHrana(file);
    const feeds = startFeedServer();
    const bot = await startFakeBotApi({ token: TOKEN, limits: null });
    let forward: ForwardProcess | null = null;
    /** Until the feed's runs have sent and recorded `count` messages in all. */
    const sent = (feed: string, count: number) =>
      forward!.untilLog((log) => sentIn(log, feed) >= count, `${count} sent by ${feed}`);
    try {
      for (const feed of FEEDS) feeds.set(`/${feed}.xml`, items(feed, 2));
      const config = `${dir}/config.yml`;
      await Deno.writeTextFile(
        config,
        stringify({
          messenger_auth_token: TOKEN,
          db_url: server.url,
          data_dir: dir,
          feeds: FEEDS.map((feed) => ({
            name: feed,
            channel: `@chan_${feed}`,
            url: feeds.url(`/${feed}.xml`),
            cron: "* * * * *",
            type: "rss",
          })),
        }),
      );
      forward = startForward(["-c", config, "--fetch-timeout", "600"], {
        COURIER_MESSENGER_API: bot.url,
        LIBSQL_AUTH_TOKEN: DB_TOKEN,
        COURIER_LEASE_TTL: "1200",
        ...fastClockEnv(FACTOR),
      });

      // Before: the first run posts what the feeds hold.
      for (const feed of FEEDS) await sent(feed, 2);
      assert.ok(!forward.log.includes("feed failed"), forward.log);

      // The outage. Entries published only once the server is gone: no run can have looked
      // them up before it went.
      const before = forward.log.length;
      await server.stop();
      for (const feed of FEEDS) feeds.set(`/${feed}.xml`, items(feed, 4));
      // Three runs of each feed in a row fail: the server stays down for two of its minutes.
      for (const feed of FEEDS) await forward.untilCount(`msg="feed failed" feed=${feed} `, 3);
      const outage = forward.log.slice(before).split("\n").filter((l) => l !== "");
      assert.equal(bot.messages().length, FEEDS.length * 2, "nothing posted during the outage");

      // After: the server back on the same file and port, and more entries published. The
      // next run posts them and what came during the outage; nothing is left in flight at the
      // stop, whose grace runs on the fast clock.
      server = await startHrana(file, { port: server.port });
      for (const feed of FEEDS) feeds.set(`/${feed}.xml`, items(feed, 5));
      for (const feed of FEEDS) await sent(feed, 5);
      const { code, log } = await forward.stop();
      forward = null;
      assert.equal(code, 0, log);
      assert.match(log, /msg=stopped/, "the process ran on to a clean stop");

      for (const feed of FEEDS) {
        assert.deepEqual(
          bot.messages(`@chan_${feed}`).map((m) => m.bold[0]),
          [1, 2, 3, 4, 5].map((n) => `Post ${feed}${n}`),
          `${feed}: each entry once, in order`,
        );
      }
      await server.stop();
      assert.deepEqual(
        sentRows(file),
        FEEDS.flatMap((feed) => [1, 2, 3, 4, 5].map((n) => `${feed}/${feed}${n}`)).sort(),
        "the state records each entry once",
      );

      const failures = outage.filter((l) => l.includes("level=error"));
      assert.ok(failures.length >= FEEDS.length * 3, outage.join("\n"));
      for (const line of failures) {
        assert.ok(line.includes(server.url), `names the database: ${line}`);
      }
      assert.ok(!log.includes(DB_TOKEN), "the database token is never logged");
      assert.ok(!log.includes(TOKEN), "nor the bot token");
    } finally {
      if (forward) await forward.kill().catch(() => {});
      await bot.close();
      await feeds.close();
      // Stopped already unless the test failed before its end.
      await server.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});

if (missing !== null) console.log(`database outage process test skipped: ${missing}`);
