/**
 * The second opinion on the wire format: npm's telegram-test-api (an emulator of the Bot API's
 * server side) takes courier's messages with disable_notification and message_thread_id, as
 * BotApi sends them, and answers with the message it stored.
 */
import assert from "node:assert/strict";
// A test-only package: an npm: specifier here keeps it out of the product's import map.
import telegramTestApi from "npm:telegram-test-api@4.2.1";
import { Secret } from "../../src/log/secret.ts";
import { BotApi } from "../../src/messenger/bot_api.ts";
import { formatMessage } from "../../src/messenger/format.ts";
import { parseTemplate } from "../../src/messenger/template.ts";

const TOKEN = "123456:TEST-token_abc";
// A CommonJS module: its types say `exports.default` is the class, its code makes
// `module.exports` the class itself.
const TelegramServer =
  (typeof telegramTestApi === "function"
    ? telegramTestApi
    : telegramTestApi.default) as unknown as typeof telegramTestApi.default;

interface Stored {
  botToken: string;
  message: Record<string, unknown>;
}

Deno.test("telegram-test-api accepts silent messages into a forum topic, templates and Instant View", async () => {
  const server = new TelegramServer({ port: 0, host: "127.0.0.1" });
  await server.start();
  try {
    // It listened on port 0 as asked; its config still says 0, its node server knows which.
    const listening = (server as unknown as { server: { address(): { port: number } } }).server;
    const { port } = listening.address();
    const api = new BotApi({ baseUrl: `http://127.0.0.1:${port}`, token: new Secret(TOKEN) });
    const entry = {
      id: "1",
      link: "https://example.org/a?b=1&c=2",
      title: "A <title> & 😀",
      published: new Date("2024-05-01T12:00:00Z"),
      updated: null,
      summary: "Summary",
      categories: ["Rust"],
    };
    const template = parseTemplate("<b>{title}</b> {categories}\n{summary}");
    const message = {
      ...formatMessage(entry, { linkText: "Link", rhash: "abc", template }),
      silent: true,
      topic: 42,
    };
    const sent = await api.send("-1001234567890", message);
    assert.equal(typeof sent.messageId, "number");
    const plain = await api.send(
      "@plain_chan",
      formatMessage(entry, { linkText: "Link", rhash: "" }),
    );
    assert.ok(plain.messageId > sent.messageId);

    const stored = (server.storage.botMessages as unknown as Stored[]).map((m) => m.message);
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
  } finally {
    await server.stop();
  }
});
