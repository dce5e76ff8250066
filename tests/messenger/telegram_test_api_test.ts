/**
 * The second opinion on the wire format: npm's telegram-test-api (an emulator of the Bot API's
 * server side) takes courier's messages with disable_notification and message_thread_id, as
 * BotApi sends them. It runs in a process of its own with its own lock file (see
 * tests/support/telegram_test_api/check.ts for why); `.ci/run` caches its packages beforehand.
 */
import assert from "node:assert/strict";
import { bounded } from "../support/deadline.ts";
import { emulatorProcess } from "../support/telegram_emulator.ts";

Deno.test(
  "telegram-test-api accepts silent messages into a forum topic, templates and Instant View",
  bounded(60_000, async (deadline) => {
    const child = emulatorProcess("check.ts");
    let out: Deno.CommandOutput;
    try {
      out = await deadline.within("the telegram-test-api check", child.output());
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // it has ended
      }
    }
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const { ids, stored } = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.ok(ids[1] > ids[0], "both accepted, with message ids");
    assert.equal(stored.length, 2);
    assert.equal(stored[0].chat_id, "-1001234567890");
    assert.equal(stored[0].disable_notification, true);
    assert.equal(stored[0].message_thread_id, 42);
    assert.equal(stored[0].parse_mode, "HTML");
    assert.equal(stored[0].text, "<b>A &lt;title&gt; &amp; 😀</b> #Rust\nSummary");
    assert.deepEqual(stored[0].link_preview_options, {
      url: "https://t.me/iv?url=https%3A%2F%2Fexample.org%2Fa%3Fb%3D1%26c%3D2&rhash=abc",
    });
    // Without the new keys: neither field is sent at all.
    assert.equal("disable_notification" in stored[1], false);
    assert.equal("message_thread_id" in stored[1], false);
    assert.equal("link_preview_options" in stored[1], false);
  }),
);
