/**
 * What a command that forwards (or reads the forwarder's state) stands on: the data_dir lock,
 * the database, the last-success file, the outbox (the Bot API, or a printer for a dry run),
 * the proxy clients, and which feeds to run. `once` opens it for one run; a long-lived process
 * keeps it open and swaps its proxy clients on reload.
 */
import type { FeedSettings, Settings } from "../config/types.ts";
import { type Clock, realClock, sleep } from "../log/clock.ts";
import type { Logger } from "../log/logger.ts";
import { redactUrl } from "../log/secret.ts";
import {
  BotApi,
  DEFAULT_MESSENGER_API,
  type Outbox,
  type SendOptions,
  type Sent,
} from "../messenger/bot_api.ts";
import type { Message } from "../messenger/format.ts";
import { Pacer } from "../messenger/pacer.ts";
import { Circuit } from "../messenger/circuit.ts";
import { openProxyClient, type ProxyClient } from "../net/client.ts";
import { parseProxy } from "../net/proxy.ts";
import { dbPath, Store } from "../store/db.ts";
import { LastSuccessFile, readLastSuccess } from "../store/last_success.ts";
import { acquireLock, type DataDirLock } from "../store/lock.ts";
import { PrintingOutbox, readOnlyState } from "./dry_run.ts";
import type { ForwardState, SuccessLog } from "./feed_run.ts";
import type { ForwarderOptions } from "./forwarder.ts";

/** A bad command-line choice found while wiring a run (exit code 2, nothing was done). */
export class RuntimeUsageError extends Error {
  override name = "RuntimeUsageError";
  readonly exitCode = 2;
}

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
    throw new RuntimeUsageError(
      `courier: the messenger API must be an http(s) URL, got "${redactUrl(value)}"`,
    );
  }
  return value;
}

/** The named feeds (all when none is named), in config order: the delivery order on a channel. */
export function selectFeeds(command: string, settings: Settings, names: string[]): FeedSettings[] {
  if (names.length === 0) return settings.feeds;
  const known = new Map(settings.feeds.map((f) => [f.name, f]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new RuntimeUsageError(
      `courier ${command}: no feed named ${unknown.map((n) => `"${n}"`).join(", ")} in ` +
        `${settings.configPath} (feeds: ${[...known.keys()].join(", ")})`,
    );
  }
  return settings.feeds.filter((f) => names.includes(f.name));
}

/**
 * One HTTP client per distinct proxy value, keyed by that value. `update` opens the clients a
 * new set of values needs and hands back the closing of those no longer named, for the caller
 * to run once no run that started with the old settings is still using them.
 */
export class ProxyClients {
  readonly #clients = new Map<string, ProxyClient>();

  get(value: string | null): Deno.HttpClient | undefined {
    return value === null ? undefined : this.#clients.get(value)?.client;
  }

  /** Opens what `values` adds; on a failure, opens nothing (the clients in use stay). */
  async update(values: Iterable<string | null>): Promise<() => Promise<void>> {
    const wanted = new Set([...values].filter((v): v is string => v !== null));
    const opened = new Map<string, ProxyClient>();
    try {
      for (const value of wanted) {
        // Values were checked by the config loader; parseProxy throws ProxyError otherwise.
        if (!this.#clients.has(value)) opened.set(value, await openProxyClient(parseProxy(value)));
      }
    } catch (error) {
      for (const c of opened.values()) await c.close();
      throw error;
    }
    for (const [value, client] of opened) this.#clients.set(value, client);
    const dropped: ProxyClient[] = [];
    for (const [value, client] of this.#clients) {
      if (!wanted.has(value)) {
        dropped.push(client);
        this.#clients.delete(value);
      }
    }
    return async () => {
      for (const c of dropped) await c.close();
    };
  }

  async close(): Promise<void> {
    const all = [...this.#clients.values()];
    this.#clients.clear();
    for (const c of all) await c.close();
  }
}

export interface RuntimeOptions {
  settings: Settings;
  /** The feeds this process runs (their proxies are opened). */
  feeds: FeedSettings[];
  /** A dry run reads the state if there is one, prints instead of sending, takes no lock. */
  dryRun: boolean;
  messengerApi: string;
  logger: Logger;
  /** Where a dry run prints its messages. */
  writeOut: (text: string) => void;
  /** Every timer of the state and the messenger runs on it; default the process's. */
  clock?: Clock;
  /** Told the HTTP status of every Bot API answer. */
  onMessengerResponse?: (status: number) => void;
}

/**
 * The outbox every run sends through; what it sends with can be swapped (a reload with a new
 * token or messenger proxy) while runs hold on to this one object.
 */
export class SwitchableOutbox implements Outbox {
  constructor(public current: Outbox) {}

  send(chat: string, message: Message, signal?: AbortSignal, options?: SendOptions): Promise<Sent> {
    return this.current.send(chat, message, signal, options);
  }
}

/** What decides how the messenger is reached; a reload that changes it builds a new client. */
function messengerKey(settings: Settings): string {
  return JSON.stringify([settings.token.reveal(), settings.messengerProxy]);
}

/**
 * The last-success file as it is before this process writes it. When it lists feeds while the
 * database knows none (new or empty: the state was lost or moved, e.g. a courier.db copied
 * without its -wal file, or a db_dir that changed), says so once, loudly, naming both files;
 * the feed runs then treat those feeds as first sightings (feed_run.ts, recoveredLimit). An
 * unreadable file lists nothing here: the runs that write it report it.
 */
async function priorSuccesses(
  settings: Settings,
  store: Store | null,
  logger: Logger,
): Promise<ReadonlyMap<string, Date>> {
  const prior = await readLastSuccess(settings.lastLoadedPath).catch(() => new Map<string, Date>());
  if (prior.size === 0 || (store !== null && !(await store.isEmpty()))) return prior;
  const db = store?.path ?? dbPath(settings.dbDir);
  logger.warn(
    `state lost or moved: ${db} is ${store === null ? "missing" : "new or empty"} but ` +
      `${settings.lastLoadedPath} lists ${prior.size} feed${prior.size === 1 ? "" : "s"} that ` +
      `succeeded before; ${prior.size === 1 ? "it is" : "they are"} treated as first ` +
      "sightings: only the newest first_time_limit entries are sent (none without a limit)",
  );
  return prior;
}

/** The opened runtime; `close` releases everything, in the reverse order of opening. */
export class Runtime {
  #messengerKey = "";
  #makeBotApi: ((settings: Settings) => BotApi) | null = null;

  private constructor(
    readonly state: ForwardState,
    readonly outbox: SwitchableOutbox,
    readonly successLog: SuccessLog,
    /** Chat migrations known so far (old id → new id), kept current as the messenger reports them. */
    readonly migrations: Map<string, string>,
    readonly proxies: ProxyClients,
    readonly store: Store | null,
    private readonly lock: DataDirLock | null,
    private readonly logger: Logger,
    /** The last-success file as found at the open (see FeedRunContext.priorSuccesses). */
    readonly priorSuccesses: ReadonlyMap<string, Date>,
    /** The names of every feed of the config (not only those run): what retention keeps. */
    private readonly configured: readonly string[] = [],
  ) {}

  static async open(options: RuntimeOptions): Promise<Runtime> {
    const { settings, dryRun, logger } = options;
    const clock = options.clock ?? realClock;
    const proxies = new ProxyClients();
    let lock: DataDirLock | null = null;
    let store: Store | null = null;
    try {
      await proxies.update([
        ...options.feeds.map((f) => f.proxy),
        ...(dryRun ? [] : [settings.messengerProxy]),
      ]);
      if (dryRun) {
        // Reads the state if there is one (to show what a real run would send now); creates
        // and changes nothing, and needs no token.
        store = await Store.open(settings.dbDir, { readOnly: true });
        const prior = await priorSuccesses(settings, store, logger);
        return new Runtime(
          readOnlyState(store),
          new SwitchableOutbox(new PrintingOutbox(options.writeOut)),
          { record: () => Promise.resolve() },
          new Map(),
          proxies,
          store,
          null,
          logger,
          prior,
        );
      }
      lock = await acquireLock(settings.dataDir);
      if (lock.takenOverFrom !== null) {
        logger.info("took over a lock left by a process that is gone", {
          pid: lock.takenOverFrom,
        });
      }
      const opened = (await Store.open(settings.dbDir, { clock }))!;
      store = opened;
      const migrations = await opened.chatMigrations();
      const prior = await priorSuccesses(settings, opened, logger);
      // One pacer for the life of the process: Telegram's limits hold across feeds, ticks and
      // a reload that replaces the client.
      const pacer = new Pacer();
      // Likewise the chats found unreachable: a reload does not make the messenger come back.
      const circuit = new Circuit();
      const makeBotApi = (current: Settings) =>
        new BotApi({
          baseUrl: options.messengerApi,
          token: current.token,
          client: proxies.get(current.messengerProxy),
          pacer,
          circuit,
          logger,
          now: () => clock.monotonic(),
          sleep: (ms, signal) => sleep(clock, ms, signal),
          onMigrate: async (from, to) => {
            migrations.set(from, to);
            await opened.recordChatMigration(from, to, new Date(clock.now()));
          },
          onResponse: options.onMessengerResponse,
        });
      const runtime = new Runtime(
        opened,
        new SwitchableOutbox(makeBotApi(settings)),
        new LastSuccessFile(settings.lastLoadedPath, { clock }),
        migrations,
        proxies,
        opened,
        lock,
        logger,
        prior,
        settings.feeds.map((f) => f.name),
      );
      runtime.#makeBotApi = makeBotApi;
      runtime.#messengerKey = messengerKey(settings);
      return runtime;
    } catch (error) {
      store?.close();
      lock?.release();
      await proxies.close();
      throw error;
    }
  }

  /**
   * Takes a reloaded config's proxies and messenger settings: opens the proxy clients it names,
   * and when its token or messenger proxy differ, sends every later message with a new client
   * (same pacer). Returns whether the messenger changed, and the closing of the proxy clients
   * no longer named, to run once the runs started before have ended.
   */
  async reconfigure(
    settings: Settings,
  ): Promise<{ messengerChanged: boolean; closeDropped: () => Promise<void> }> {
    const dryRun = this.#makeBotApi === null;
    const closeDropped = await this.proxies.update([
      ...settings.feeds.map((f) => f.proxy),
      ...(dryRun ? [] : [settings.messengerProxy]),
    ]);
    const key = dryRun ? "" : messengerKey(settings);
    const messengerChanged = key !== this.#messengerKey;
    if (messengerChanged) {
      this.outbox.current = this.#makeBotApi!(settings);
      this.#messengerKey = key;
    }
    return { messengerChanged, closeDropped };
  }

  /** The HTTP client that carries a feed's proxy; undefined for a direct connection. */
  fetchClientFor = (feed: FeedSettings): Deno.HttpClient | undefined =>
    this.proxies.get(feed.proxy);

  /** What a Forwarder (or a Loop's) takes from the runtime: state, outbox, migrations, proxies. */
  get forwarderParts(): Pick<
    ForwarderOptions,
    "state" | "outbox" | "successLog" | "migrations" | "fetchClientFor" | "priorSuccesses"
  > {
    return {
      priorSuccesses: this.priorSuccesses,
      state: this.state,
      outbox: this.outbox,
      successLog: this.successLog,
      migrations: this.migrations,
      fetchClientFor: this.fetchClientFor,
    };
  }

  /**
   * Prunes the state if the last prune is a day old (one read otherwise), keeping the feeds
   * `configured` (default: those of the config the runtime was opened with; a reloaded loop
   * passes its current ones). `once` calls it at its end, so `once` from cron stays bounded
   * too; a loop may call it after every tick. A failure is logged, never thrown. Nothing for a
   * dry run. The checkpoint that empties the -wal file is close's.
   */
  async maintain(
    now: Date,
    logger: Logger,
    configured: readonly string[] = this.configured,
  ): Promise<void> {
    if (this.lock === null || this.store === null) return;
    try {
      const pruned = await this.store.pruneIfDue(now, { configured });
      if (pruned && (pruned.entries > 0 || pruned.runs > 0 || pruned.droppedFeeds.length > 0)) {
        logger.info("state pruned", {
          entries: pruned.entries,
          runs: pruned.runs,
          dropped_feeds: pruned.droppedFeeds.length,
        });
      }
    } catch (error) {
      // What was delivered is recorded; the next run prunes again.
      logger.warn("pruning the state failed", { error: (error as Error).message });
    }
  }

  async close(): Promise<void> {
    // A dry run's store is read-only: shutdown only closes it.
    const failure = await this.store?.shutdown();
    if (failure) {
      this.logger.warn("the state stays partly in the -wal file beside the database", {
        error: failure.message,
      });
    }
    this.lock?.release();
    await this.proxies.close();
  }
}
