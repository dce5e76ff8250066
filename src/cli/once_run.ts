import { ConfigError, configPathFrom, loadSettings } from "../config/load.ts";
import type { FeedSettings, Settings } from "../config/types.ts";
// Not mod.ts: that loads the parser, which a steady-state run never needs (read.ts loads it
// when a body first needs parsing).
import { readFeed } from "../feeds/read.ts";
import { PrintingOutbox, readOnlyState } from "../forward/dry_run.ts";
import type { ForwardState, SuccessLog } from "../forward/feed_run.ts";
import { runOnce } from "../forward/once.ts";
import { formatProgress, formatSummary } from "../forward/summary.ts";
import { stderrLogger } from "../log/logger.ts";
import { redactUrl } from "../log/secret.ts";
import { BotApi, DEFAULT_MESSENGER_API, type Outbox } from "../messenger/bot_api.ts";
import { openProxyClient, type ProxyClient } from "../net/client.ts";
import { parseProxy, ProxyError } from "../net/proxy.ts";
import { Store, StoreError } from "../store/db.ts";
import { LastSuccessFile } from "../store/last_success.ts";
import { acquireLock, type DataDirLock, LockError } from "../store/lock.ts";
import { parseCommandArgs, parsePositiveInt } from "./args.ts";
import { DEFAULT_CONCURRENCY } from "./once.ts";
import { UsageError, UserError } from "./errors.ts";

const encoder = new TextEncoder();
const writeOut = (text: string) => Deno.stdout.writeSync(encoder.encode(text));

/** The messenger API base URL: the flag, else $COURIER_MESSENGER_API, else Telegram's. */
export function messengerApiFrom(flag: string | undefined): string {
  const value = flag ?? Deno.env.get("COURIER_MESSENGER_API") ?? DEFAULT_MESSENGER_API;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UsageError(
      `courier: the messenger API must be an http(s) URL, got "${redactUrl(value)}"`,
    );
  }
  return value;
}

function selectFeeds(settings: Settings, names: string[]): FeedSettings[] {
  if (names.length === 0) return settings.feeds;
  const known = new Map(settings.feeds.map((f) => [f.name, f]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new UsageError(
      `courier once: no feed named ${unknown.map((n) => `"${n}"`).join(", ")} in ` +
        `${settings.configPath} (feeds: ${[...known.keys()].join(", ")})`,
    );
  }
  // Config order, whatever the order of the flags: it is the delivery order on a channel.
  return settings.feeds.filter((f) => names.includes(f.name));
}

/** Opens one proxy client per distinct proxy value; proxy values were checked by the loader. */
async function proxyClients(values: (string | null)[]): Promise<Map<string, ProxyClient>> {
  const clients = new Map<string, ProxyClient>();
  for (const value of new Set(values)) {
    if (value === null || clients.has(value)) continue;
    try {
      clients.set(value, await openProxyClient(parseProxy(value)));
    } catch (error) {
      for (const c of clients.values()) await c.close();
      if (error instanceof ProxyError) throw new UserError(`courier once: ${error.message}`, 2);
      throw error;
    }
  }
  return clients;
}

/** A progress line on stderr, redrawn in place; only when stderr is a terminal. */
function progressLine(total: number) {
  const enabled = Deno.stderr.isTerminal();
  let done = 0, sent = 0, failed = 0;
  const draw = () => {
    if (!enabled) return;
    Deno.stderr.writeSync(encoder.encode(`\r\x1b[K${formatProgress(done, total, sent, failed)}`));
  };
  draw();
  return {
    sent() {
      sent++;
      draw();
    },
    feedDone(ok: boolean) {
      done++;
      if (!ok) failed++;
      draw();
    },
    clear() {
      if (enabled) Deno.stderr.writeSync(encoder.encode("\r\x1b[K"));
    },
  };
}

/** `courier once`: loaded by onceCommand.run only when the command runs. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs("once", argv, {
    config: { type: "string", short: "c" },
    feed: { type: "string", multiple: true },
    "dry-run": { type: "boolean" },
    concurrency: { type: "string" },
    "messenger-api": { type: "string" },
  });
  const concurrency = values.concurrency === undefined
    ? DEFAULT_CONCURRENCY
    : parsePositiveInt("once", "concurrency", values.concurrency);
  const dryRun = values["dry-run"] === true;
  const apiBase = messengerApiFrom(values["messenger-api"]);
  let settings: Settings;
  try {
    settings = await loadSettings(configPathFrom(values.config));
  } catch (error) {
    if (error instanceof ConfigError) throw new UserError(error.message, 2);
    throw error;
  }
  const feeds = selectFeeds(settings, values.feed ?? []);
  const logger = stderrLogger();

  let lock: DataDirLock | null = null;
  let store: Store | null = null;
  let clients = new Map<string, ProxyClient>();
  try {
    let state: ForwardState;
    let outbox: Outbox;
    let successLog: SuccessLog;
    let migrations = new Map<string, string>();
    clients = await proxyClients([
      ...feeds.map((f) => f.proxy),
      ...(dryRun ? [] : [settings.messengerProxy]),
    ]);
    if (dryRun) {
      // Reads the state if there is one (to show what a real run would send now); creates
      // and changes nothing, and needs no token.
      store = await Store.open(settings.dbDir, { readOnly: true });
      state = readOnlyState(store);
      outbox = new PrintingOutbox(writeOut);
      successLog = { record: () => Promise.resolve() };
    } else {
      lock = await acquireLock(settings.dataDir);
      if (lock.takenOverFrom !== null) {
        logger.info("took over a lock left by a process that is gone", {
          pid: lock.takenOverFrom,
        });
      }
      store = (await Store.open(settings.dbDir))!;
      const opened = store;
      migrations = await store.chatMigrations();
      state = store;
      successLog = new LastSuccessFile(settings.lastLoadedPath);
      outbox = new BotApi({
        baseUrl: apiBase,
        token: settings.token,
        client: settings.messengerProxy === null
          ? undefined
          : clients.get(settings.messengerProxy)?.client,
        logger,
        onMigrate: async (from, to) => {
          migrations.set(from, to);
          await opened.recordChatMigration(from, to, new Date());
        },
      });
    }

    const progress = progressLine(feeds.length);
    const summary = await runOnce({
      feeds,
      read: readFeed,
      state,
      outbox,
      successLog,
      logger,
      concurrency,
      migrations,
      serialize: dryRun,
      fetchClientFor: (feed) => feed.proxy === null ? undefined : clients.get(feed.proxy)?.client,
      onSent: () => progress.sent(),
      onFeedDone: (result) => progress.feedDone(result.error === null),
    });
    progress.clear();
    writeOut(
      (dryRun ? "\n" : "") + formatSummary(summary.results, dryRun) +
        (dryRun ? "\n(dry run: nothing was sent or recorded)\n" : "\n"),
    );
    if (summary.fatal !== null) console.error(`courier once: ${summary.fatal}`);
    return summary.results.every((r) => r.error === null) ? 0 : 1;
  } catch (error) {
    if (error instanceof LockError || error instanceof StoreError) {
      throw new UserError(`courier once: ${error.message}`, 1);
    }
    throw error;
  } finally {
    store?.close();
    lock?.release();
    for (const c of clients.values()) await c.close();
  }
}
