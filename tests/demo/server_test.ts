import assert from "node:assert/strict";
import { parseFeed } from "../../src/feeds/parse.ts";
import { serveDemoFeeds } from "../../src/demo/server.ts";

const MINUTE = 60_000;

Deno.test("demo server: the news feed gains one story per minute boundary after its first request", async () => {
  // 12:00:59.9 — the catch-up may come a moment before a boundary.
  let now = Date.UTC(2026, 0, 1, 12, 0, 59, 900);
  const server = serveDemoFeeds(() => now);
  try {
    const titles = async () => {
      const response = await fetch(`${server.base}/news.xml`);
      const text = await response.text();
      return parseFeed(text, response.url).entries.map((e) => e.title);
    };
    const first = await titles();
    assert.equal(first.filter((t) => t.startsWith("Live")).length, 0);
    assert.equal(first.length, 4);

    now += 200; // 12:01:00.1, the next tick
    assert.deepEqual((await titles()).slice(0, 1), [
      "Live from the demo press: the 12:01 UTC story",
    ]);
    now += 30_000; // same minute: nothing more
    assert.equal((await titles()).length, 5);
    now += 2 * MINUTE; // 12:03:30: a skipped tick does not lose a story
    assert.deepEqual((await titles()).slice(0, 3), [
      "Live from the demo press: the 12:03 UTC story",
      "Live from the demo press: the 12:02 UTC story",
      "Live from the demo press: the 12:01 UTC story",
    ]);
    const other = await fetch(`${server.base}/blog.atom`);
    assert.equal(other.status, 200);
    await other.body?.cancel();
    const missing = await fetch(`${server.base}/nope`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await server.shutdown();
  }
});
