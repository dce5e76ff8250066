/**
 * Items without guid that share an enclosure URL are each posted: the feeds that merged them
 * (a file every item names, a live stream, the show's page and one file), run through the real
 * CLI against the fixture server and the fake Bot API.
 */
import assert from "node:assert/strict";
import { withCliEnv } from "../support/cli_env.ts";
import { startFeedServer } from "../support/feed_server.ts";

Deno.test("once: items without guid sharing an enclosure are each posted once", () =>
  withCliEnv(async (env) => {
    const fixtures = startFeedServer();
    try {
      const names = [
        "podcast-shared-enclosure.xml",
        "podcast-live-stream.xml",
        "podcast-shared-link-and-enclosure.xml",
      ];
      await env.writeConfig({
        feeds: names.map((name, i) => ({
          name: `f${i}`,
          channel: `@chan_${i}`,
          url: `${fixtures.base}/feeds/${name}`,
          cron: "*/5 * * * *",
          type: "rss",
        })),
      });
      const r = await env.run("once");
      assert.equal(r.code, 0, r.stderr);
      const titles = (chat: string) => env.bot.messages(chat).map((m) => m.bold[0]);
      assert.deepEqual(titles("@chan_0"), ["First upload", "Second upload", "Third upload"]);
      assert.deepEqual(titles("@chan_1"), ["Morning show, Monday", "Morning show, Tuesday"]);
      assert.deepEqual(titles("@chan_2"), ["Episode 1", "Episode 2", "Episode 3"]);
      assert.match(r.stdout, /^f0\s+3\s+3\s+3\s+0$/m);
    } finally {
      await fixtures.close();
    }
  }));
