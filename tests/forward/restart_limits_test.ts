/**
 * Telegram's 20 a minute per channel across an immediate restart (issue 28, item 1), with real
 * processes and the fake Bot API enforcing Telegram's limits by arrival time: the first
 * `forward` sends its 20, is stopped and started again at once, and the new process counts the
 * 20 the state recorded in the last minute: it waits instead of sending (the fake would answer
 * 429 to a 21st). Synchronised on log lines and messages, never on sleeps.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { startForward } from "../support/forward_process.ts";
import { postItems, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";

Deno.test("forward: a restart at once never sends a channel more than 20 in a minute", async () => {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  let twenty!: () => void;
  const gotTwenty = new Promise<void>((resolve) => twenty = resolve);
  const bot = await startFakeBotApi({
    token: TOKEN,
    onMessage: (_m, total) => {
      if (total === 20) twenty();
    },
  });
  const started: ReturnType<typeof startForward>[] = [];
  try {
    feeds.set("/busy.xml", postItems(Array.from({ length: 60 }, (_, i) => `e${i}`)));
    const config = `${dir}/config.yml`;
    await Deno.writeTextFile(
      config,
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: dir,
        feeds: [{
          name: "busy",
          channel: "@busy",
          url: feeds.url("/busy.xml"),
          cron: "*/30 * * * *",
          type: "rss",
        }],
      }),
    );
    const env = { COURIER_MESSENGER_API: bot.url, COURIER_LOG_LEVEL: "debug" };
    const first = startForward(["-c", config, "--grace", "0"], env);
    started.push(first);
    await gotTwenty;
    // The 21st waits in the first process's pacer; stop it there and start again at once.
    await first.until("waiting for the chat's rate limit");
    const stopped = await first.stop();
    assert.equal(stopped.code, 0, stopped.log);
    const second = startForward(["-c", config, "--grace", "0"], env);
    started.push(second);
    await second.until("messenger limits seeded from the state");
    // It reached the send and holds it back for most of the minute.
    await second.until("waiting for the chat's rate limit");
    const wait = Number(/waiting for the chat's rate limit.*wait_ms=(\d+)/.exec(second.log)![1]);
    assert.ok(wait > 1_000, `the restarted process waits for the minute to pass, ${wait} ms`);
    await second.stop();
    assert.equal(bot.messages("@busy").length, 20);
    assert.equal(bot.throttled, 0, "the fake never had to refuse a message");
    // In any 60 s, at most 20 (by the fake's arrival times).
    const times = bot.messages("@busy").map((m) => m.at);
    for (const t of times) assert.ok(times.filter((u) => u >= t && u < t + 60_000).length <= 20);
  } finally {
    for (const p of started) await p.kill().catch(() => {});
    await bot.close();
    await feeds.close();
    await Deno.remove(dir, { recursive: true });
  }
});
