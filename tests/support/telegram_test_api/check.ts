/**
 * Run by tests/messenger/telegram_test_api_test.ts in a process of its own, with its own lock
 * file (deno.lock beside it) and no config: npm's telegram-test-api (an emulator of the Bot
 * API's server side, with express and some sixty packages) stays out of the project's lock, whose
 * npm packages every `deno run` of courier loads the resolution of at start-up. Sends courier's
 * messages through BotApi and prints what the emulator stored, as JSON, on stdout.
 */
import telegramTestApi from "npm:telegram-test-api@4.2.1";
import { Secret } from "../../../src/secrets/secret.ts";
import { BotApi } from "../../../src/messenger/bot_api.ts";
import { formatMessage } from "../../../src/messenger/format.ts";
import { parseTemplate } from "../../../src/messenger/template.ts";

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

const server = new TelegramServer({ port: 0, host: "127.0.0.1" });
// Its constructor reads port 0 as "unset" (`port || 9000`): ask for 0 again, so two of these
// never meet on port 9000.
(server as unknown as { config: { port: number } }).config.port = 0;
await server.start();
try {
  // Its node server knows which port it was given.
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
  const plain = await api.send(
    "@plain_chan",
    formatMessage(entry, { linkText: "Link", rhash: "" }),
  );

  const stored = (server.storage.botMessages as unknown as Stored[]).map((m) => m.message);
  console.log(JSON.stringify({ ids: [sent.messageId, plain.messageId], stored }));
} finally {
  await server.stop();
}
