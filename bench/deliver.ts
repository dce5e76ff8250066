/**
 * Delivery under Telegram's limits: 600 new entries (30 feeds × 20, one channel each) through
 * `runOnce` — real feed reading, real state, the real Bot API client — to the fake Bot API
 * enforcing the real limits (20 a minute per chat, 30 a second overall, 429 + retry_after).
 *
 * The least time the limits allow: 30 messages may go in any one second, so the 600th can start
 * no earlier than 19 s after the first (20 per channel fit the per-minute limit). Reported:
 * the time from the first message to the last, its ratio to that minimum, and the 429s.
 */
import { Store } from "../src/store/db.ts";
import type { FeedSettings } from "../src/config/types.ts";
import { readFeed } from "../src/feeds/read.ts";
import { runOnce } from "../src/forward/once.ts";
import { createLogger } from "../src/log/logger.ts";
import { Secret } from "../src/secrets/secret.ts";
import { BotApi } from "../src/messenger/bot_api.ts";
import { startFakeBotApi } from "../tests/support/fake_bot_api.ts";
import { startFeedServer } from "../tests/support/once_feeds.ts";

const CHANNELS = 30;
const PER_CHANNEL = 20;
const TOKEN = "123456:bench-token";

export async function run(): Promise<void> {
  const fake = await startFakeBotApi({ token: TOKEN }); // the real limits
  const feedServer = startFeedServer();
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-deliver-" });
  const store = (await Store.open(dir))!;
  try {
    const feeds: FeedSettings[] = [];
    for (let c = 0; c < CHANNELS; c++) {
      feedServer.set(
        `/f${c}.xml`,
        Array.from({ length: PER_CHANNEL }, (_, i) => ({
          id: `f${c}-${i}`,
          title: `Channel ${c} entry ${i}`,
          link: `https://example.org/${c}/${i}`,
          minute: i,
        })),
      );
      feeds.push({
        name: `f${c}`,
        channel: `@bench_deliver${c}`,
        urls: [feedServer.url(`/f${c}.xml`)],
        cron: "* * * * *",
        type: "rss",
        rhash: "",
        proxy: null,
        linkText: "Link",
        firstTimeLimit: -1,
      });
    }
    const logger = createLogger({ format: "text", color: false, level: "error", write: () => {} });
    const t0 = performance.now();
    const summary = await runOnce({
      feeds,
      read: readFeed,
      state: store,
      outbox: new BotApi({ baseUrl: fake.url, token: new Secret(TOKEN), logger }),
      successLog: { record: () => Promise.resolve() },
      logger,
      concurrency: 8,
    });
    const wall = performance.now() - t0;
    const sent = summary.results.reduce((n, r) => n + r.sent, 0);
    const failed = summary.results.filter((r) => r.error !== null);
    if (sent !== CHANNELS * PER_CHANNEL || failed.length > 0) {
      throw new Error(`bench deliver: sent ${sent}, failed ${failed[0]?.error}`);
    }
    const times = fake.messages().map((m) => m.at);
    const span = Math.max(...times) - Math.min(...times);
    const minimum = (Math.ceil((CHANNELS * PER_CHANNEL) / 30) - 1) * 1000;
    console.log(
      `delivery: ${sent} messages to ${CHANNELS} channels, real limits enforced by the fake`,
    );
    console.log(`  first → last message  ${(span / 1000).toFixed(2)} s`);
    console.log(
      `  minimum the limits allow ${(minimum / 1000).toFixed(2)} s   ratio ${
        (span / minimum).toFixed(3)
      }× (target ≤ 1.15×)`,
    );
    console.log(
      `  whole run (fetch + deliver)  ${(wall / 1000).toFixed(2)} s   ratio ${
        (wall / minimum).toFixed(3)
      }×`,
    );
    console.log(`  429 answers received  ${fake.throttled} (target 0)`);
  } finally {
    store.close();
    await feedServer.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await run();
