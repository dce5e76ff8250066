/**
 * Issue 28, item 2, on real time: a real `courier forward` with 24 feeds on a server that
 * answers only after the fetch limit, listed before 4 feeds of a healthy server, concurrency 8.
 * Every feed is first due at the next minute (the last-success file says each ran in this
 * one). Then the slow server's feeds time out, while the healthy server's feeds fetch beside
 * them at once and a healthy feed's new entry is posted at that minute.
 *
 * To keep the wait within a real minute, the fetch limit is `--fetch-timeout 3` (not 30 s) and
 * the slow server answers after 5 s (not 35 s): the same shape, scaled down.
 */
import assert from "node:assert/strict";
import { TOKEN, writeTestConfig } from "../support/cli_env.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { startForward } from "../support/forward_process.ts";
import { type FeedItem, rss } from "../support/once_feeds.ts";

Deno.test("forward: 24 feeds timing out on a slow server hold back no healthy feed; its new entry goes at its next minute", async () => {
  const dir = await Deno.makeTempDir();
  const closing = new AbortController();
  const slowRequests = { total: 0, atFirstHealthy: -1 };
  const slow = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async () => {
      slowRequests.total++;
      // Past the 10 s limit; the test's end lets it go.
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 5_000);
        closing.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve(null);
        });
      });
      return new Response(rss("slow", []), { headers: { "content-type": "application/rss+xml" } });
    },
  );
  const healthy = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      if (slowRequests.atFirstHealthy === -1) slowRequests.atFirstHealthy = slowRequests.total;
      const name = new URL(request.url).pathname.slice(1);
      const items: FeedItem[] = [
        { id: `${name}-1`, title: `${name} entry 1` },
        { id: `${name}-2`, title: `${name} entry 2`, minute: 1 },
      ];
      return new Response(rss(name, items), { headers: { "content-type": "application/rss+xml" } });
    },
  );
  const bot = await startFakeBotApi({ token: TOKEN });
  const feeds = [
    ...Array.from({ length: 24 }, (_, i) => ({
      name: `slow${i}`,
      url: `http://127.0.0.1:${slow.addr.port}/slow${i}.xml`,
    })),
    ...Array.from({ length: 4 }, (_, i) => ({
      name: `healthy${i}`,
      url: `http://127.0.0.1:${healthy.addr.port}/healthy${i}`,
    })),
  ];
  const config = `${dir}/config.yml`;
  await writeTestConfig(config, dir, {
    // Its newest entry is the healthy feed's new one: a first sighting sends just that.
    first_time_limit: 1,
    feeds: feeds.map((f) => ({
      name: f.name,
      channel: `@${f.name}`,
      url: f.url,
      cron: "* * * * *",
      type: "rss",
    })),
  });
  // Each feed ran in this minute: none catches up at start, all are due at the next minute.
  await Deno.mkdir(`${dir}/data`, { recursive: true });
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  await Deno.writeTextFile(
    `${dir}/data/last_success.yml`,
    feeds.map((f) => `${f.name}: ${now}\n`).join(""),
  );
  const forward = startForward([
    "-c",
    config,
    "--messenger-api",
    bot.url,
    "--concurrency",
    "8",
    "--fetch-timeout",
    "3",
  ]);
  try {
    // The next minute: every feed is due. The healthy feeds post their entry at once.
    await forward.until('msg="feed sent" feed=healthy0 sent=1');
    assert.deepEqual(bot.messages("@healthy0").map((m) => m.bold[0]), ["healthy0 entry 2"]);
    // The healthy server was asked while the slow one held only its share of the slots (4),
    // not after all 24 slow feeds (first come, first served would have made it wait for 3
    // rounds of the fetch limit).
    assert.ok(
      slowRequests.atFirstHealthy >= 0 && slowRequests.atFirstHealthy <= 4,
      `slow requests before the first healthy one: ${slowRequests.atFirstHealthy}`,
    );
    // Meanwhile the slow server's feeds time out.
    await forward.until("timed out after 3000 ms");
  } finally {
    const { code, log } = await forward.stop();
    closing.abort();
    await slow.shutdown();
    await healthy.shutdown();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
    assert.equal(code, 0, log);
    // The timeouts are the slow server's feeds' failures, one line per failed run.
    assert.match(log, /msg="feed failed" feed=slow0 .*timed out after 3000 ms/);
    // No healthy feed was ever skipped, and skips, if any, are one line per tick.
    for (const line of log.split("\n").filter((l) => l.includes("still going"))) {
      assert.doesNotMatch(line, /healthy/, line);
    }
  }
});
