/**
 * The state on a libSQL server (db_url), with real processes, the libSQL project's own Hrana
 * server on loopback and the fake Bot API: `once` keeps nothing locally and a second run sends
 * nothing; `status` reads it; two `forward` processes split the channels, one killed with
 * SIGKILL is taken over when its leases expire, one stopped with SIGTERM hands over at once.
 * Every wait is for an event (a message accepted, a log line), never a sleep.
 */
import assert from "node:assert/strict";
import { stateRows } from "../support/state_rows.ts";
import { stringify } from "../support/yaml.ts";
import { type FakeMessage, startFakeBotApi } from "../support/fake_bot_api.ts";
import { startForward } from "../support/forward_process.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";
import { postItems, startFeedServer } from "../support/once_feeds.ts";
import { runCli } from "../support/cli.ts";

const TOKEN = "123456:TEST-token_abc";
const DB_TOKEN = "db-secret-token-42";
const missing = hranaMissing();

/** Resolves when the fake has accepted a message matching `match`. */
function messageWaiter() {
  const waiting: { match: (m: FakeMessage) => boolean; resolve: () => void }[] = [];
  const seen: FakeMessage[] = [];
  return {
    onMessage(message: FakeMessage) {
      seen.push(message);
      for (const w of [...waiting]) {
        if (w.match(message)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      }
    },
    until(match: (m: FakeMessage) => boolean): Promise<void> {
      if (seen.some(match)) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ match, resolve }));
    },
  };
}

function leaseRows(file: string): { channel: string; holder: string }[] {
  return stateRows(file, "SELECT channel, holder FROM leases ORDER BY channel") as {
    channel: string;
    holder: string;
  }[];
}

Deno.test({
  name: "once with db_url: the state is on the server, nothing local; again sends nothing; status",
  ignore: missing !== null,
  async fn() {
    const dir = await Deno.makeTempDir();
    const server = await startHrana(`${dir}/server.db`);
    const feeds = startFeedServer();
    const bot = await startFakeBotApi({ token: TOKEN });
    try {
      feeds.set("/news.xml", postItems(["n1", "n2", "n3"]));
      await Deno.mkdir(`${dir}/work`);
      await Deno.writeTextFile(
        `${dir}/work/config.yml`,
        stringify({
          messenger_auth_token: TOKEN,
          db_url: server.url,
          feeds: [{
            name: "news",
            channel: "@news",
            url: feeds.url("/news.xml"),
            cron: "*/5 * * * *",
            type: "rss",
          }],
        }),
      );
      const env = { COURIER_MESSENGER_API: bot.url, LIBSQL_AUTH_TOKEN: DB_TOKEN };
      const first = await runCli(["once", "-c", "config.yml"], { cwd: `${dir}/work`, env });
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(bot.messages("@news").map((m) => m.bold[0]), [
        "Post n1",
        "Post n2",
        "Post n3",
      ]);
      // Nothing of the state is local: no database, no lock (the last-success file is a copy).
      const local = [...Deno.readDirSync(`${dir}/work`)].map((e) => e.name).sort();
      assert.deepEqual(local.filter((n) => n !== "last_success.yml"), ["config.yml"]);
      const again = await runCli(["once", "-c", "config.yml"], { cwd: `${dir}/work`, env });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(bot.messages("@news").length, 3, "the second run sent nothing");
      // The leases were handed back at the end of each run.
      assert.deepEqual(leaseRows(`${dir}/server.db`), []);

      // Status on another "machine": no last-success file, the server's record is the truth.
      await Deno.remove(`${dir}/work/last_success.yml`);
      const status = await runCli(["status", "--json", "-c", "config.yml"], {
        cwd: `${dir}/work`,
        env,
      });
      assert.equal(status.code, 0, status.stderr);
      const [feed] = JSON.parse(status.stdout);
      assert.equal(feed.sent_total, 3);
      assert.notEqual(feed.last_success, null);
      assert.equal(feed.lease, null);
      for (const text of [first.stderr, again.stderr, status.stdout, status.stderr]) {
        assert.ok(!text.includes(DB_TOKEN), "the database token is never shown");
      }
    } finally {
      await bot.close();
      await feeds.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "two forwards on one db_url: both run, SIGKILL is taken over, SIGTERM hands over",
  ignore: missing !== null,
  async fn() {
    const dir = await Deno.makeTempDir();
    const server = await startHrana(`${dir}/server.db`);
    const feeds = startFeedServer();
    const waiter = messageWaiter();
    const bot = await startFakeBotApi({ token: TOKEN, onMessage: (m) => waiter.onMessage(m) });
    const started: ReturnType<typeof startForward>[] = [];
    try {
      feeds.set("/a.xml", postItems(["a1"]));
      feeds.set("/b.xml", postItems(["b1"]));
      const config = `${dir}/config.yml`;
      await Deno.writeTextFile(
        config,
        stringify({
          messenger_auth_token: TOKEN,
          db_url: server.url,
          data_dir: dir,
          feeds: ["a", "b"].map((n) => ({
            name: n,
            channel: `@chan_${n}`,
            url: feeds.url(`/${n}.xml`),
            cron: "* * * * *",
            type: "rss",
          })),
        }),
      );
      // Leases of 2 s (renewed every 0.5 s) keep the takeover within seconds.
      const env = { COURIER_MESSENGER_API: bot.url, COURIER_LEASE_TTL: "2" };
      const start = () => {
        const p = startForward(["-c", config, "--grace", "5"], env);
        started.push(p);
        return p;
      };
      const first = start();
      await waiter.until((m) => m.bold[0] === "Post a1");
      await waiter.until((m) => m.bold[0] === "Post b1");
      // A second process: the first hands back half the channels, the second takes them.
      const second = start();
      await second.until("leases taken");
      await first.until("leases handed back");
      const rows = leaseRows(`${dir}/server.db`);
      assert.equal(rows.length, 2);
      assert.equal(new Set(rows.map((r) => r.holder)).size, 2, "each process holds a channel");

      // SIGKILL the first: its channel is taken over when its lease runs out, and a new entry
      // published meanwhile is posted.
      const killedHolder = rows.find((r) => !second.log.includes(`holder=${r.holder}`))!.holder;
      const killedChannel = rows.find((r) => r.holder === killedHolder)!.channel;
      const killedFeed = killedChannel.replace("@chan_", "");
      await first.kill();
      feeds.set(`/${killedFeed}.xml`, postItems([`${killedFeed}1`, `${killedFeed}2`]));
      await waiter.until((m) => m.bold[0] === `Post ${killedFeed}2`);
      assert.ok(leaseRows(`${dir}/server.db`).every((r) => r.holder !== killedHolder));

      // A third process, then SIGTERM the second: its leases are handed back at its stop.
      const third = start();
      await third.until("holder=");
      const stopped = await second.stop();
      assert.equal(stopped.code, 0, stopped.log);
      const secondHolder = /holder=(\S+)/.exec(stopped.log)![1];
      assert.ok(
        leaseRows(`${dir}/server.db`).every((r) => r.holder !== secondHolder),
        "a clean stop hands every lease back",
      );
      feeds.set("/a.xml", postItems(["a1", "a2", "a3"]));
      feeds.set("/b.xml", postItems(["b1", "b2", "b3"]));
      await waiter.until((m) => m.bold[0] === "Post a3");
      await waiter.until((m) => m.bold[0] === "Post b3");
      await third.stop();

      // Every entry reached its channel; at most one duplicate per channel (the kill).
      for (const channel of ["@chan_a", "@chan_b"]) {
        const titles = bot.messages(channel).map((m) => m.bold[0]);
        const letter = channel.at(-1);
        for (const n of [1, 2, 3]) assert.ok(titles.includes(`Post ${letter}${n}`), channel);
        assert.ok(titles.length - new Set(titles).size <= 1, `${channel}: ${titles}`);
      }
      assert.equal(bot.throttled, 0);
    } finally {
      for (const p of started) await p.kill().catch(() => {});
      await bot.close();
      await feeds.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
