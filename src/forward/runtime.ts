/**
 * What a run stands on: the data_dir lock, the database, the last-success file, the outbox (the
 * Bot API, or a printer for a dry run) and the proxy clients. `once` opens it for one run; a
 * long-lived process keeps it open and swaps its proxy clients on reload. Which feeds to run
 * and the messenger API are decided before (select_feeds.ts, cli/run_flags.ts).
 */
import type { FeedSettings, Settings } from "../config/types.ts";
import { type Clock, realClock, sleep } from "../time/clock.ts";
import type { Logger } from "../log/logger.ts";
import { BotApi, type Outbox, type SendOptions, type Sent } from "../messenger/bot_api.ts";
import type { Message } from "../messenger/format.ts";
import { Pacer, seedPacer, TELEGRAM_LIMITS } from "../messenger/pacer.ts";
import { Circuit } from "../messenger/circuit.ts";
import { ProxyClients } from "../net/proxy_clients.ts";
import { Store, type StoreOptions } from "../store/db.ts";
import { describeLocation, stateLocation } from "../store/location.ts";
import { DEFAULT_LEASE_TTL_MS, holderName, Leases } from "./leases.ts";
import { LastSuccessFile, readLastSuccess } from "../store/last_success.ts";
import { acquireLock, type DataDirLock } from "../store/lock.ts";
import { PrintingOutbox, readOnlyState } from "./dry_run.ts";
import type { ForwardState, SuccessLog } from "./feed_run.ts";
import type { ForwarderOptions } from "./forwarder.ts";

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
  /**
   * With remote state: `once` takes every free channel's lease for its run (`takeAll`);
   * `forward` takes its share and renews (src/forward/leases.ts). Default `forward`'s way.
   */
  leaseAll?: boolean;
  /** The lease TTL; default $COURIER_LEASE_TTL or 60 s (a simulation scales it with its steps). */
  leaseTtlMs?: number;
  /** How a `db_url` is reached (StoreOptions.connect); default the libSQL client. */
  connect?: StoreOptions["connect"];
  /** The database's clock (StoreOptions.databaseNow); default the server's own. */
  databaseNow?: StoreOptions["databaseNow"];
}

/** Telegram counts a minute back; a second more covers the time between send and record. */
const SEED_WINDOW_MS = TELEGRAM_LIMITS.perChat.windowMs + 1_000;

/** The lease TTL: $COURIER_LEASE_TTL seconds (tests, impatient operators), else 60 s. */
function leaseTtlMs(): number {
  const value = Number(Deno.env.get("COURIER_LEASE_TTL"));
  return Number.isFinite(value) && value > 0 ? value * 1000 : DEFAULT_LEASE_TTL_MS;
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
 * Each feed's last successful run before this process: the database's record, the one every
 * process and `status` read. Only when it has none is the last-success file read: a state from
 * before the database kept them (its times are copied in, unless `readOnly`), or a state lost
 * or moved. When the file lists feeds while the database knows none (new or empty, e.g. a
 * courier.db copied without its -wal file, or a db_dir that changed), says so once, loudly,
 * naming both; the feed runs then treat those feeds as first sightings (feed_run.ts).
 */
async function priorSuccesses(
  settings: Settings,
  store: Store | null,
  logger: Logger,
  readOnly: boolean,
): Promise<ReadonlyMap<string, Date>> {
  const recorded = store ? await store.lastSuccesses() : new Map<string, Date>();
  if (recorded.size > 0) return recorded;
  let prior: Map<string, Date>;
  try {
    prior = await readLastSuccess(settings.lastLoadedPath);
  } catch (error) {
    // Only the catch-up at start depends on it: every feed then runs once at start.
    logger.warn("last-success file unreadable; every feed runs at start", {
      error: (error as Error).message,
    });
    return recorded;
  }
  if (prior.size === 0) return prior;
  if (store === null || (await store.isEmpty())) {
    const db = store?.path ?? describeLocation(stateLocation(settings));
    logger.warn(
      `state lost or moved: ${db} is ${store === null ? "missing" : "new or empty"} but ` +
        `${settings.lastLoadedPath} lists ${prior.size} feed${prior.size === 1 ? "" : "s"} ` +
        `that succeeded before; ${prior.size === 1 ? "it is" : "they are"} treated as first ` +
        "sightings: only the newest first_time_limit entries are sent (none without a limit)",
    );
  }
  if (store !== null && !readOnly) {
    for (const [feed, at] of prior) store.recordSuccess(feed, at);
    await store.flushSuccesses();
  }
  return prior;
}

/**
 * Each success goes to the database (authoritative: start-up and `status` read it, on every
 * machine with remote state) and to the last-success file (a copy, for people and tools).
 */
function successLog(store: Store, file: LastSuccessFile): SuccessLog {
  return {
    record: (feed, at) => {
      store.recordSuccess(feed, at);
      return file.record(feed, at);
    },
    writeNow: () => file.writeNow(),
    flush: async () => {
      await Promise.all([store.flushSuccesses(), file.flush()]);
    },
  };
}

/** The opened runtime; `close` releases everything, in the reverse order of opening. */
export class Runtime {
  #messengerKey = "";
  #makeBotApi: ((settings: Settings) => BotApi) | null = null;
  /** With remote state: this process's channel leases; null for a local file or a dry run. */
  leases: Leases | null = null;
  #pacer: Pacer | null = null;
  #clock: Clock = realClock;

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
        store = await Store.openAt(stateLocation(settings), { readOnly: true });
        const prior = await priorSuccesses(settings, store, logger, true);
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
      const location = stateLocation(settings);
      // The lock guards a local database; processes sharing a server coordinate by leases.
      if (location.kind === "file") {
        lock = await acquireLock(settings.dataDir);
        if (lock.takenOverFrom !== null) {
          logger.info("took over a lock left by a process that is gone", {
            pid: lock.takenOverFrom,
          });
        }
      }
      const opened = (await Store.openAt(location, {
        clock,
        connect: options.connect,
        databaseNow: options.databaseNow,
      }))!;
      store = opened;
      const migrations = await opened.chatMigrations();
      const prior = await priorSuccesses(settings, opened, logger, false);
      // One pacer for the life of the process: Telegram's limits hold across feeds, ticks and
      // a reload that replaces the client.
      const pacer = new Pacer();
      // What the state says went out in the last minute still counts at Telegram: a restart
      // (or another process before this one) must not send a channel's 20 again.
      const recent = await opened.sentWithin(SEED_WINDOW_MS);
      const seeded = seedPacer(pacer, recent, clock.monotonic());
      if (seeded > 0) {
        logger.debug("messenger limits seeded from the state", { sent_last_minute: seeded });
      }
      // Likewise the chats found unreachable: a reload does not make the messenger come back.
      const circuit = new Circuit();
      const makeBotApi = (current: Settings) =>
        new BotApi({
          baseUrl: options.messengerApi,
          token: current.token,
          tokenOrigin: current.tokenFix === undefined
            ? undefined
            : { source: current.tokenSource ?? "config", fix: current.tokenFix },
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
      const file = new LastSuccessFile(settings.lastLoadedPath, { clock, known: prior });
      const runtime = new Runtime(
        opened,
        new SwitchableOutbox(makeBotApi(settings)),
        successLog(opened, file),
        migrations,
        proxies,
        opened,
        lock,
        logger,
        prior,
        settings.feeds.map((f) => f.name),
      );
      runtime.#makeBotApi = makeBotApi;
      runtime.#pacer = pacer;
      runtime.#clock = clock;
      if (opened.remote) {
        const leases = new Leases({
          store: opened,
          clock,
          logger,
          holder: holderName(Deno.hostname(), Deno.pid),
          ttlMs: options.leaseTtlMs ?? leaseTtlMs(),
          takeAll: options.leaseAll,
        });
        leases.onHolders = (count) => pacer.shareGlobal(count);
        leases.setChannels(options.feeds.map((f) => f.channel));
        runtime.leases = leases;
        // The first step before any run: a feed runs only under its channel's lease.
        await leases.refresh();
        logger.info("leases", { holder: leases.holder, channels: leases.held });
        // `once` renews for as long as its run lasts (a paced channel takes minutes): its sends
        // are fenced by the lease like forward's; forward's loop starts the renewals itself.
        if (options.leaseAll) leases.start();
      }
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

  /** What a Forwarder (or a Loop's) takes from the runtime: state, outbox, migrations, proxies. */
  get forwarderParts(): Pick<
    ForwarderOptions,
    | "state"
    | "outbox"
    | "successLog"
    | "migrations"
    | "fetchClientFor"
    | "priorSuccesses"
    | "holds"
    | "fence"
  > {
    const leases = this.leases;
    return {
      holds: leases ? (channel) => leases.holds(channel) : undefined,
      fence: leases ?? undefined,
      priorSuccesses: this.priorSuccesses,
      state: this.state,
      outbox: this.outbox,
      successLog: this.successLog,
      migrations: this.migrations,
      fetchClientFor: (feed) => this.proxies.get(feed.proxy),
    };
  }

  /**
   * Prunes the state if the last prune is a day old (one read otherwise), keeping the feeds
   * `configured` (default: those of the config the runtime was opened with; a reloaded loop
   * passes its current ones). `once` calls it at its end, so `once` from cron stays bounded
   * too; a loop may call it after every tick. A failure is logged, never thrown. Nothing for a
   * dry run. The checkpoint that empties the -wal file is close's.
   */
  async maintain(configured: readonly string[] = this.configured): Promise<void> {
    // Not for a dry run (no messenger); with remote state any process may prune: it is
    // idempotent, and meta.pruned_at makes the others skip it for a day.
    if (this.#makeBotApi === null || this.store === null) return;
    try {
      const pruned = await this.store.pruneIfDue(new Date(this.#clock.now()), { configured });
      if (pruned && (pruned.entries > 0 || pruned.runs > 0 || pruned.droppedFeeds.length > 0)) {
        this.logger.info("state pruned", {
          entries: pruned.entries,
          runs: pruned.runs,
          dropped_feeds: pruned.droppedFeeds.length,
        });
      }
    } catch (error) {
      // What was delivered is recorded; the next run prunes again.
      this.logger.warn("pruning the state failed", { error: (error as Error).message });
    }
  }

  /**
   * Before running the feeds of channels just taken from another process: Telegram's limits
   * are seeded with what the state says went to them in the last minute, and what this
   * process remembers of those feeds (validators, latest run rows) is dropped, since the other
   * process wrote newer ones.
   */
  async takeOver(channels: readonly string[], feeds: readonly FeedSettings[]): Promise<void> {
    if (this.store === null || this.#pacer === null) return;
    const taken = new Set(channels);
    const mine = feeds.filter((f) => taken.has(f.channel));
    await this.store.adopt(mine.map((f) => f.name));
    const chats = new Set(channels.map((c) => this.migrations.get(c) ?? c));
    const recent = await this.store.sentWithin(SEED_WINDOW_MS);
    seedPacer(this.#pacer, recent, this.#clock.monotonic(), chats);
  }

  async close(): Promise<void> {
    // Handed back only now, after every write of this process: the next holder sees them.
    await this.leases?.stop();
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
