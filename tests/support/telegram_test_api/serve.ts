/**
 * npm's telegram-test-api as a server for a test in another process (same lock and reasons as
 * check.ts): prints `{"url": ...}` once it listens, then, when its stdin closes, every message
 * it stored as JSON on one line, and stops.
 */
import telegramTestApi from "npm:telegram-test-api@4.2.1";

// A CommonJS module: see check.ts.
const TelegramServer =
  (typeof telegramTestApi === "function"
    ? telegramTestApi
    : telegramTestApi.default) as unknown as typeof telegramTestApi.default;

const server = new TelegramServer({ port: 0, host: "127.0.0.1" });
// Its constructor reads port 0 as "unset" (`port || 9000`): ask for 0 again, so two of these
// never meet on port 9000.
(server as unknown as { config: { port: number } }).config.port = 0;
await server.start();
try {
  const listening = (server as unknown as { server: { address(): { port: number } } }).server;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${listening.address().port}` }));
  // Until the test is done with it.
  for await (const _ of Deno.stdin.readable) {
    // nothing is read from stdin; its end is the signal
  }
  const stored = server.storage.botMessages as unknown as { message: Record<string, unknown> }[];
  console.log(JSON.stringify(stored.map((m) => m.message)));
} finally {
  await server.stop();
}
