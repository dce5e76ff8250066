/**
 * A year of hourly runs of one rotating feed, through the real reader (a local HTTP server),
 * the Forwarder, the real Store and the Bot API client against the local fake, on the injected
 * clock, pruning once a simulated day as `forward` does: every entry is posted exactly once,
 * and the database stops growing once retention's 90 days are full.
 */
import assert from "node:assert/strict";
import type { FeedSettings } from "../../src/config/types.ts";
import { Deadlines } from "../../src/time/deadlines.ts";
import { readFeed } from "../../src/feeds/read.ts";
import { Forwarder } from "../../src/forward/forwarder.ts";
import { sleep } from "../../src/time/clock.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { BotApi } from "../../src/messenger/bot_api.ts";
import { Store } from "../../src/store/db.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { memoryLogger } from "../support/forward_stubs.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { type FeedItem, rss } from "../support/once_feeds.ts";
import { random } from "../support/generated.ts";

const HOUR = 3_600_000;
const HOURS = 8_760;
const MONTH_HOURS = 730;
const SHOWN = 20;
const TOKEN = "123456:TEST-token_abc";

/**
 * Serves the newest SHOWN items of an ever-growing list with an ETag: 304 for the current one;
 * `republish` gives the same body a new ETag (a server without stable ETags), which courier
 * must recognise by the body's hash.
 */
function rotatingFeed() {
  const items: FeedItem[] = [];
  let body = "";
  let etag = '"v0"';
  let version = 0;
  const served = { full: 0, notModified: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (req.headers.get("if-none-match") === etag) {
      served.notModified++;
      return new Response(null, { status: 304, headers: { etag } });
    }
    served.full++;
    return new Response(body, { headers: { "content-type": "application/rss+xml", etag } });
  });
  const publish = () => {
    body = rss("rotating", items.slice(-SHOWN));
    etag = `"v${++version}"`;
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}/feed.xml`,
    served,
    get total() {
      return items.length;
    },
    add(count: number) {
      for (let i = 0; i < count; i++) {
        const n = items.length + 1;
        items.push({
          id: `e${n}`,
          title: `entry ${n}`,
          link: `https://example.org/${n}`,
          minute: n,
        });
      }
      publish();
    },
    republish: publish,
    close: () => server.shutdown(),
  };
}

Deno.test("a year of hourly runs: each entry posted once, the database flat after the first months", async () => {
  const dir = await Deno.makeTempDir();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const feedServer = rotatingFeed();
  const bot = await startFakeBotApi({ token: TOKEN, now: () => clock.monotonic() });
  const store = (await Store.open(dir, { clock }))!;
  const { logger, lines } = memoryLogger();
  const feed: FeedSettings = {
    name: "rotating",
    channel: "@year",
    urls: [feedServer.url],
    cron: "0 * * * *",
    type: "rss",
    rhash: "",
    proxy: null,
    linkText: "Link",
    firstTimeLimit: -1,
  };
  const forwarder = new Forwarder({
    read: readFeed,
    state: store,
    outbox: new BotApi({
      baseUrl: bot.url,
      token: new Secret(TOKEN),
      now: () => clock.monotonic(),
      sleep: (ms, signal) => sleep(clock, ms, signal),
    }),
    successLog: { record: () => Promise.resolve() },
    logger,
    concurrency: 1,
    clock,
    deadlines: new Deadlines(clock),
    onUnauthorized: "continue",
  });
  const next = random(12);
  const sizes: number[] = [];
  let pruned = { entries: 0, runs: 0 };
  const timing = { runs: 0, prune: 0, checkpoint: 0 };
  try {
    feedServer.add(SHOWN);
    for (let hour = 0; hour < HOURS; hour++) {
      const roll = next();
      // About a third of the hours nothing changed (304), one in ten the server sends the
      // same body again with a new ETag (same hash), the rest bring 1-3 entries.
      if (hour > 0 && roll >= 0.4) feedServer.add(1 + Math.floor(next() * 3));
      else if (hour > 0 && roll >= 0.3) feedServer.republish();
      let t = performance.now();
      const { results } = await forwarder.run([feed]);
      timing.runs += performance.now() - t;
      assert.equal(results[0].error, null, `hour ${hour}: ${results[0].error}`);
      if (hour % 24 === 23) {
        t = performance.now();
        const counts = await store.prune(new Date(clock.now()), { configured: [feed.name] });
        pruned = { entries: pruned.entries + counts.entries, runs: pruned.runs + counts.runs };
        timing.prune += performance.now() - t;
        t = performance.now();
        await store.checkpoint("passive");
        timing.checkpoint += performance.now() - t;
      }
      if ((hour + 1) % MONTH_HOURS === 0) {
        const month = (hour + 1) / MONTH_HOURS;
        await store.checkpoint("truncate");
        const [[pages]] = await store.query("PRAGMA page_count");
        const [[pageSize]] = await store.query("PRAGMA page_size");
        const [[entries]] = await store.query("SELECT count(*) FROM entries");
        const [[runs]] = await store.query("SELECT count(*) FROM runs");
        const bytes = Number(pages) * Number(pageSize);
        sizes[month] = bytes;
        console.log(
          `month ${String(month).padStart(2)}: ${bytes} bytes (${pages} pages), ` +
            `${entries} entries, ${runs} runs rows; ${feedServer.total} entries published`,
        );
      }
      await clock.advance(HOUR);
    }
    console.log(
      `runs ${Math.round(timing.runs)} ms, prunes ${Math.round(timing.prune)} ms, ` +
        `checkpoints ${Math.round(timing.checkpoint)} ms; ` +
        `pruned ${pruned.entries} entries, ${pruned.runs} runs rows; ` +
        `served ${feedServer.served.full} bodies, ${feedServer.served.notModified} 304s`,
    );

    const posted = bot.messages("@year").map((m) => m.bold[0]);
    assert.equal(new Set(posted).size, posted.length, "an entry was posted twice");
    assert.equal(posted.length, feedServer.total, "every entry is posted");
    assert.equal(posted.at(-1), `entry ${feedServer.total}`);
    assert.ok(feedServer.served.notModified > 1000, "the 304 path was taken");
    assert.ok(feedServer.served.full > HOURS * 0.6, "bodies were parsed (and hashed) too");
    assert.ok(pruned.entries > feedServer.total / 2, `retention pruned ${pruned.entries}`);
    assert.ok(
      sizes[12] <= 1.1 * sizes[4],
      `database grew from ${sizes[4]} bytes at month 4 to ${sizes[12]} at month 12`,
    );
    assert.deepEqual(lines.filter((l) => l.includes("ERROR")), []);
  } finally {
    store.close();
    await bot.close();
    await feedServer.close();
    await Deno.remove(dir, { recursive: true });
  }
});
