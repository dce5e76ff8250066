/**
 * `courier forward`: the process's life in one place (as miniflux's daemon.go): open the
 * runtime (the data_dir lock is held until the end), start the loop and the metrics server,
 * then wait for signals: SIGHUP reloads, the first SIGINT/SIGTERM stops in a fixed order (the
 * loop with its grace, the metrics server, the runtime), a second exits at once.
 */
import { ConfigError } from "../config/errors.ts";
import { loadSettings } from "../config/load.ts";
import type { Settings } from "../config/types.ts";
import { DEFAULT_TIMEOUT_MS, readFeed } from "../feeds/read.ts";
import {
  type HealthServer,
  MetricsAddressError,
  parseMetricsAddress,
  serveHealth,
} from "../forward/health_server.ts";
import { Loop } from "../forward/loop.ts";
import { ForwardMetrics } from "../forward/metrics.ts";
import { Runtime } from "../forward/runtime.ts";
import { openNotifier, watchdogInterval } from "../forward/sd_notify.ts";
import { realClock } from "../time/clock.ts";
import { type LogFormat, type Logger, stderrLogger } from "../log/logger.ts";
import { burstLogger } from "../forward/bursts.ts";
import { parseCommandArgs, parseDuration } from "./args.ts";
import { UsageError, UserError } from "./errors.ts";
import { DEFAULT_GRACE_S } from "./defaults.ts";
import { readRunFlags, RUN_OPTIONS } from "./run_flags.ts";
import { onStopSignals, type StopSignal } from "./signals.ts";

const encoder = new TextEncoder();
const writeOut = (text: string) => Deno.stdout.writeSync(encoder.encode(text));

/** How late the loop's planned tick may be before /healthz says it stalled. */
const HEALTH_SLACK_MS = 30_000;

/** Settings a running process cannot take without a restart, with their config key. */
const RESTART_ONLY: [keyof Settings, string][] = [
  ["dataDir", "data_dir"],
  ["dbDir", "db_dir"],
  ["dbUrl", "db_url"],
  ["lastLoadedPath", "last_loaded_path"],
];

const list = (names: string[]) => names.length === 0 ? "none" : names.join(",");

export async function run(argv: string[], logFormat?: LogFormat): Promise<number> {
  const { values } = parseCommandArgs("forward", argv, {
    ...RUN_OPTIONS,
    grace: { type: "string", default: String(DEFAULT_GRACE_S) },
    metrics: { type: "string" },
    // The time limit of one feed URL's request, body included.
    "fetch-timeout": { type: "string", default: `${DEFAULT_TIMEOUT_MS}ms` },
  });
  const flags = readRunFlags("forward", values);
  const graceMs = parseDuration("forward", "grace", values.grace, 0, "a number of seconds >= 0");
  const fetchTimeoutMs = parseDuration(
    "forward",
    "fetch-timeout",
    values["fetch-timeout"],
    1,
    "a number of seconds > 0",
  );
  let listen: { hostname: string; port: number } | null = null;
  if (values.metrics !== undefined) {
    try {
      listen = parseMetricsAddress(values.metrics);
    } catch (error) {
      if (error instanceof MetricsAddressError) {
        throw new UsageError(`courier forward: ${error.message}`);
      }
      throw error;
    }
  }
  let settings = await loadSettings(flags.configPath);
  // Bursts of one warning (thousands of feeds saying the same) are one line with a count.
  const logger = burstLogger(stderrLogger(logFormat, flags.logLevel), realClock);
  for (const warning of settings.warnings ?? []) logger.warn(warning);
  const metrics = new ForwardMetrics();

  const runtime = await Runtime.open({
    settings,
    feeds: settings.feeds,
    dryRun: flags.dryRun,
    messengerApi: flags.messengerApi,
    logger,
    writeOut,
    onMessengerResponse: (status) => metrics.recordMessengerResponse(status),
  });
  let server: HealthServer | null = null;
  let removeListeners = () => {};
  let reloads: Reloads | undefined;
  let stopping = false;
  let ready = false;
  let stopSystemd: SystemdLink = NO_SYSTEMD;
  let reloadAsked = false;
  // Listening from the start and to the end: SIGHUP's default action would end the process.
  const reloadSignal = () => {
    if (stopping) logger.warn("SIGHUP ignored: stopping");
    else if (reloads) reloads.request();
    else reloadAsked = true;
  };
  Deno.addSignalListener("SIGHUP", reloadSignal);
  try {
    const loop = new Loop({
      forwarder: {
        read: readFeed,
        ...runtime.forwarderParts,
        logger,
        concurrency: flags.concurrency,
        fetchTimeoutMs,
        serialize: flags.dryRun,
      },
      clock: realClock,
      logger,
      metrics,
      lastSuccess: runtime.priorSuccesses,
      // Pruning at most once a day (the store keeps when it last ran), against the feeds of the
      // config in force; a passive checkpoint after a tick that wrote, which never waits for a
      // reader such as `courier browse` or `status` (the truncating one is at the stop).
      maintenance: () => runtime.maintain(settings.feeds.map((f) => f.name)),
      checkpoint: flags.dryRun ? undefined : async () => {
        await runtime.store?.checkpoint();
      },
      leases: runtime.leases ?? undefined,
      onTakeover: (channels, feeds) => runtime.takeOver(channels, feeds),
    });
    const leases = runtime.leases;
    if (leases) metrics.watchLeases(() => ({ held: leases.held, lost: leases.lost }));

    let stopWith: (signal: StopSignal) => void = () => {};
    const stopped = new Promise<StopSignal>((resolve) => stopWith = resolve);
    removeListeners = onStopSignals((signal) => stopWith(signal));

    if (listen !== null) {
      try {
        server = serveHealth({
          ...listen,
          metrics,
          health: () => loop.health(HEALTH_SLACK_MS),
          ready: () => ready,
        });
      } catch (error) {
        if (error instanceof MetricsAddressError) {
          throw new UserError(`courier forward: ${error.message}`, 1);
        }
        throw error;
      }
      logger.info("serving /healthz, /readyz and /metrics", { url: server.url });
    }

    loop.start(settings.feeds);
    ready = true;
    stopSystemd = tellSystemd(logger, () => loop.health(HEALTH_SLACK_MS).ok);
    await stopSystemd.ready(`forwarding ${settings.feeds.length} feeds`);
    reloads = new Reloads(logger, async () => {
      settings = await reload(settings, flags.configPath, runtime, loop, logger) ?? settings;
    });
    logger.info("forwarding", { feeds: settings.feeds.length, pid: Deno.pid });
    if (reloadAsked) reloads.request();

    const signal = await stopped;
    stopping = true;
    ready = false;
    await stopSystemd.stopping();
    logger.info("stopping", { signal, grace_s: graceMs / 1000 });
    await reloads.idle();
    await loop.stop(graceMs);
    if (server) await server.shutdown();
    server = null;
    logger.info("stopped");
    return 0;
  } finally {
    Deno.removeSignalListener("SIGHUP", reloadSignal);
    removeListeners();
    stopSystemd.close();
    if (server) await server.shutdown();
    await runtime.close();
    logger.flush();
  }
}

interface SystemdLink {
  ready(status: string): Promise<void>;
  stopping(): Promise<void>;
  close(): void;
}

const NO_SYSTEMD: SystemdLink = {
  ready: () => Promise.resolve(),
  stopping: () => Promise.resolve(),
  close: () => {},
};

/**
 * Under systemd (`Type=notify`): READY=1 once the loop runs, WATCHDOG=1 at half the watchdog's
 * period while the scheduler is healthy (a stalled one is then restarted), STOPPING=1 at the
 * first stop signal.
 */
function tellSystemd(logger: Logger, healthy: () => boolean): SystemdLink {
  const env = (name: string) => Deno.env.get(name);
  const notifier = openNotifier(env);
  if (notifier === null) return NO_SYSTEMD;
  if ("unusable" in notifier) {
    logger.warn("cannot tell systemd we are ready: $NOTIFY_SOCKET is " + notifier.unusable);
    return NO_SYSTEMD;
  }
  const every = watchdogInterval(env, Deno.pid);
  const timer = every === null ? undefined : setInterval(() => {
    if (healthy()) notifier.send("WATCHDOG=1");
  }, every);
  return {
    ready: (status) => notifier.send(`READY=1\nSTATUS=${status}\nMAINPID=${Deno.pid}`),
    stopping: () => notifier.send("STOPPING=1\nSTATUS=stopping"),
    close() {
      clearInterval(timer);
      notifier.close();
    },
  };
}

/** SIGHUPs, handled one after the other; one arriving during a reload runs once after it. */
class Reloads {
  #running: Promise<void> | null = null;
  #again = false;

  constructor(private readonly logger: Logger, private readonly work: () => Promise<void>) {}

  request(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.work();
        } catch (error) {
          this.logger.error("reload failed", { error: (error as Error).message.split("\n")[0] });
        }
      } while (this.#again);
    })().finally(() => this.#running = null);
  }

  async idle(): Promise<void> {
    await this.#running;
  }
}

/** Loads the config again and applies it; returns the new settings, or null when refused. */
async function reload(
  current: Settings,
  configPath: string,
  runtime: Runtime,
  loop: Loop,
  logger: Logger,
): Promise<Settings | null> {
  logger.info("reloading", { config: configPath });
  let next: Settings;
  try {
    next = await loadSettings(configPath);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // One line saying so, then each problem as `validate` prints it (file:line:col: key: why).
    logger.error("reload failed; the running config stays", { problems: error.problems.length });
    for (const problem of error.problems) logger.error(problem);
    return null;
  }
  for (const warning of next.warnings ?? []) logger.warn(warning);
  const moved = RESTART_ONLY.filter(([key]) => current[key] !== next[key]);
  if (moved.length > 0) {
    logger.error("reload failed; the running config stays", { problems: moved.length });
    for (const [key, name] of moved) {
      logger.error(
        `${next.configPath}: ${name} changed from ${current[key]} to ${next[key]}: ` +
          `this needs a restart of courier forward`,
      );
    }
    return null;
  }
  const { messengerChanged, closeDropped } = await runtime.reconfigure(next);
  const changes = loop.reload(next.feeds);
  // Runs started with the old settings may still use a dropped proxy client.
  loop.runsEnded().then(closeDropped).catch((error) => {
    logger.warn("could not close a proxy client", { error: (error as Error).message });
  });
  logger.info("reloaded", {
    feeds: next.feeds.length,
    added: list(changes.added),
    changed: list(changes.changed),
    removed: list(changes.removed),
    messenger: messengerChanged ? "updated" : "unchanged",
  });
  return next;
}
