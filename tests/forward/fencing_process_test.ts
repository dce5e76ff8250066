/**
 * Two real `courier forward` processes on one libSQL server (the libSQL project's Hrana server),
 * the fake Bot API counting by arrival, a feed server, and for one of the processes a TCP relay
 * in front of the database that the test cuts (issue 38). The faults: the holder of a channel
 * paused (SIGSTOP) past the lease TTL while a send of it waits, then resumed; its database
 * connection held, then refused, for longer than the TTL, then healed; its clock 90 s ahead or
 * behind (libfaketime); a SIGTERM handover of a channel that just got its 20 from a process
 * whose clock is 10 s behind. In each: every published entry posted, none twice, never more
 * than 20 in 60 s on a channel, and both processes hold channels when both are healthy.
 *
 * Feeds run at start (catch-up) and when their channel is taken over: their cron is yearly, so
 * no minute tick runs one at a time the test does not choose. The lease TTL is 6 s (renewed
 * every 1.5 s, trusted 4.5 s from each renewal sent: a busy machine's slow round trip to the
 * server leaves a healthy process more than the second a request needs). Every wait is for a
 * log line, a message or a count, bounded by the test's deadline; nothing sleeps.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { type FakeMessage, startFakeBotApi } from "../support/fake_bot_api.ts";
import { faketimeMissing, skewedClockEnv } from "../support/faketime.ts";
import { type ForwardProcess, startForward } from "../support/forward_process.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";
import { type FeedItem, postItems, startFeedServer } from "../support/once_feeds.ts";
import { stateRows } from "../support/state_rows.ts";
import { startTcpRelay } from "../support/tcp_relay.ts";
import { bounded, type Deadline } from "../support/deadline.ts";
import { runCli } from "../support/cli.ts";

const TOKEN = "123456:TEST-token_abc";
const TTL_S = 6;
const missing = hranaMissing() ?? faketimeMissing();

async function world(deadline: Deadline, feedA = ["a1", "a2", "a3"]) {
  const dir = await Deno.makeTempDir();
  const server = await startHrana(`${dir}/server.db`);
  const relay = startTcpRelay(server.port);
  const feeds = startFeedServer();
  const waiting: { match: (m: FakeMessage) => boolean; resolve: () => void }[] = [];
  const bot = await startFakeBotApi({
    token: TOKEN,
    onMessage: (message) => {
      for (const w of [...waiting]) {
        if (w.match(message)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      }
    },
  });
  const published = new Map<string, string[]>();
  const publish = (feed: string, ids: string[]) => {
    published.set(feed, ids);
    feeds.set(`/${feed}.xml`, postItems(ids) as FeedItem[]);
  };
  publish("a", feedA);
  publish("b", ["b1", "b2", "b3"]);
  const configOf = async (name: string, dbUrl: string) => {
    const path = `${dir}/${name}.yml`;
    await Deno.writeTextFile(
      path,
      stringify({
        messenger_auth_token: TOKEN,
        db_url: dbUrl,
        data_dir: `${dir}/${name === "status" ? "b" : name}`,
        feeds: ["a", "b"].map((n) => ({
          name: n,
          channel: `@chan_${n}`,
          url: feeds.url(`/${n}.xml`),
          cron: "0 0 1 1 *",
          type: "rss",
        })),
      }),
    );
    return path;
  };
  const started: ForwardProcess[] = [];
  const start = async (
    name: string,
    options: { viaRelay?: boolean; env?: Record<string, string> } = {},
  ) => {
    const config = await configOf(name, options.viaRelay ? relay.url : server.url);
    await Deno.mkdir(`${dir}/${name}`);
    const p = startForward(["-c", config, "--grace", "5"], {
      COURIER_MESSENGER_API: bot.url,
      COURIER_LEASE_TTL: String(TTL_S),
      ...options.env,
    });
    started.push(p);
    return p;
  };
  /** Until the fake has accepted `title` (e.g. "Post b6"). */
  const posted = (title: string) =>
    deadline.within(
      `${title} posted`,
      bot.messages().some((m) => m.bold[0] === title)
        ? Promise.resolve()
        : new Promise<void>((resolve) =>
          waiting.push({ match: (m) => m.bold[0] === title, resolve })
        ),
    );
  const until = (p: ForwardProcess, text: string, times = 1) =>
    deadline.within(`"${text}" logged ${times}x`, p.untilCount(text, times));
  const leaseHolders = () =>
    new Set(
      stateRows(`${dir}/server.db`, "SELECT holder FROM leases").map((r) => String(r.holder)),
    );
  /** Every published entry posted once, at most 20 in any 60 s of arrivals per channel. */
  const checkDelivery = () => {
    for (const [feed, ids] of published) {
      const titles = bot.messages(`@chan_${feed}`).map((m) => m.bold[0]);
      assert.deepEqual(
        [...titles].sort(),
        ids.map((id) => `Post ${id}`).sort(),
        `@chan_${feed}: every entry once`,
      );
      const times = bot.messages(`@chan_${feed}`).map((m) => m.at);
      for (const t of times) {
        const n = times.filter((u) => u >= t && u < t + 60_000).length;
        assert.ok(n <= 20, `@chan_${feed}: ${n} messages in 60 s`);
      }
    }
  };
  const close = async () => {
    for (const p of started) await p.kill().catch(() => {});
    await relay.close();
    await bot.close();
    await feeds.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  };
  /** `courier status --json` (this machine's clock): each feed's lease as the server sees it. */
  const leases = async () => {
    const status = await runCli(["status", "--json", "-c", await configOf("status", server.url)]);
    assert.equal(status.code, 0, status.stderr);
    const now = Date.now();
    return (JSON.parse(status.stdout) as { lease: { holder: string; expires_at: string } }[])
      .map((f) => ({ holder: f.lease?.holder, inMs: Date.parse(f.lease?.expires_at) - now }));
  };
  return {
    dir,
    server,
    leases,
    relay,
    bot,
    publish,
    start,
    posted,
    until,
    leaseHolders,
    checkDelivery,
    close,
  };
}

type World = Awaited<ReturnType<typeof world>>;

/**
 * B alone posts what both feeds hold; then @chan_b gets three more entries, and A starts: B
 * hands @chan_b back (its share is one of two), A takes it and runs its feed at once; the
 * messenger makes A's first send wait 8 s (a 429), which is when the test strikes.
 */
async function aWaitsToSendOnB(w: World, options: Parameters<World["start"]>[1] = {}) {
  const b = await w.start("b");
  await w.posted("Post a3");
  await w.posted("Post b3");
  w.publish("b", ["b1", "b2", "b3", "b4", "b5", "b6"]);
  w.bot.inject({ kind: "429", chat: "@chan_b", retryAfter: 8, times: 1 });
  const a = await w.start("a", options);
  await w.until(a, "channels=@chan_b");
  await w.until(a, "messenger asked to slow down");
  return { a, b };
}

/** Both healthy again: A takes a channel back (B hands one back), and each holds one. */
async function bothHoldAgain(w: World, a: ForwardProcess, takenBefore: number) {
  await w.until(a, "leases taken; running their feeds now", takenBefore + 1);
  assert.equal(w.leaseHolders().size, 2, "each process holds a channel");
}

Deno.test({
  name: "fencing: a holder paused past the TTL while its send waits sends nothing when resumed",
  ignore: missing !== null,
  fn: bounded(50_000, async (deadline) => {
    const w = await world(deadline);
    try {
      const { a, b } = await aWaitsToSendOnB(w);
      Deno.kill(a.pid, "SIGSTOP");
      // A's lease runs out; B takes @chan_b over and posts its new entries.
      await w.until(b, "channels=@chan_b");
      await w.posted("Post b6");
      Deno.kill(a.pid, "SIGCONT");
      // A's wait is over: it asks before its request, and its lease is gone.
      await w.until(a, "no longer holds the channel's lease");
      await bothHoldAgain(w, a, 1);
      w.checkDelivery();
    } finally {
      await w.close();
    }
  }),
});

Deno.test({
  name: "fencing: the holder's database connection held, then refused, past the TTL, then healed",
  ignore: missing !== null,
  fn: bounded(55_000, async (deadline) => {
    const w = await world(deadline);
    try {
      const { a, b } = await aWaitsToSendOnB(w, { viaRelay: true });
      w.relay.hold();
      await w.until(b, "channels=@chan_b");
      await w.posted("Post b6");
      // Cut off, A stops sending when its trust ends, and says that it cannot renew within
      // the database requests' deadline, not when the kernel gives up.
      await w.until(a, "no longer holds the channel's lease");
      await w.until(a, "cannot renew the channels' leases");
      assert.match(a.log, /cannot renew the channels' leases" error=".*no answer within 10 s/);
      w.relay.refuse();
      // Refused for longer than the TTL: A's renewal attempts, one every 1.5 s.
      await deadline.within("A's attempts refused", w.relay.untilRefused(6));
      w.relay.heal();
      await w.until(a, "leases renewed again");
      await bothHoldAgain(w, a, 1);
      assert.equal(
        a.log.split("cannot renew the channels' leases").length - 1,
        1,
        "the outage is logged once",
      );
      w.checkDelivery();
    } finally {
      await w.close();
    }
  }),
});

for (const offset of ["+90", "-90"]) {
  Deno.test({
    name:
      `the database's clock decides: a process whose clock is ${offset} s off neither steals nor hoards`,
    ignore: missing !== null,
    fn: bounded(45_000, async (deadline) => {
      const w = await world(deadline);
      try {
        const b = await w.start("b");
        await w.posted("Post a3");
        await w.posted("Post b3");
        w.publish("b", ["b1", "b2", "b3", "b4", "b5", "b6"]);
        const a = await w.start("a", { env: skewedClockEnv(offset) });
        await w.until(a, "channels=@chan_b");
        await w.posted("Post b6");
        // Over several renewals (each status a process of its own, a second or so), each
        // keeps its channel, and the server says each lease ends within the TTL from now.
        for (let i = 0; i < 3; i++) {
          const leases = await w.leases();
          assert.equal(new Set(leases.map((l) => l.holder)).size, 2, JSON.stringify(leases));
          for (const { inMs } of leases) {
            assert.ok(inMs > 0 && inMs <= TTL_S * 1000 + 1_000, `a lease ends in ${inMs} ms`);
          }
        }
        assert.ok(!b.log.includes("leases lost") && !a.log.includes("leases lost"), a.log);
        w.checkDelivery();
      } finally {
        await w.close();
      }
    }),
  });
}

Deno.test({
  name: "limits across a handover: a channel's 20 from a process 10 s behind, then SIGTERM",
  ignore: missing !== null,
  fn: bounded(90_000, async (deadline) => {
    const twenty = Array.from({ length: 20 }, (_, i) => `a${i + 1}`);
    const w = await world(deadline, twenty);
    try {
      const a = await w.start("a", { env: skewedClockEnv("-10") });
      await w.posted("Post a20");
      await w.posted("Post b3");
      const b = await w.start("b");
      await w.until(b, "channels=@chan_b");
      assert.equal(w.leaseHolders().size, 2, "each process holds a channel");
      // A new entry on A's channel, and A stops: B takes the channel over at once and must
      // wait out the minute of A's 20, counted by the server's clock, not A's.
      w.publish("a", [...twenty, "a21"]);
      const stopped = await a.stop();
      assert.equal(stopped.code, 0, stopped.log);
      await w.until(b, "channels=@chan_a");
      await w.posted("Post a21");
      assert.equal(w.bot.throttled, 0, "the fake never had to refuse a message");
      const times = w.bot.messages("@chan_a").map((m) => m.at);
      assert.ok(times[20] - times[0] >= 60_000, `${times[20] - times[0]} ms from 1st to 21st`);
      w.checkDelivery();
    } finally {
      await w.close();
    }
  }),
});
