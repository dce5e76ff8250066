import { loadSettings } from "../config/load.ts";
// Not parse.ts: a steady-state run never parses, and read.ts loads the parser when a body first
// needs it.
import { readFeed } from "../feeds/read.ts";
import { runOnce } from "../forward/once.ts";
import { Runtime } from "../forward/runtime.ts";
import { selectFeeds } from "../forward/select_feeds.ts";
import { formatProgress, formatSummary, summaryWanted } from "../forward/summary.ts";
import { errorLine, type LogFormat, stderrLogger } from "../log/logger.ts";
import { parseCommandArgs } from "./args.ts";
import { readRunFlags, RUN_OPTIONS } from "./run_flags.ts";
import { EXIT_CODE, onStopSignals, type StopSignal } from "./signals.ts";

const encoder = new TextEncoder();
const writeOut = (text: string) => Deno.stdout.writeSync(encoder.encode(text));

/**
 * A progress line on stderr, redrawn in place; only when stderr is a terminal. A log line is
 * written between `hide` and `show`, so the two never share a line.
 */
function progressLine(total: number) {
  const enabled = Deno.stderr.isTerminal();
  let done = 0, sent = 0, failed = 0;
  let active = false, shown = false;
  const draw = () => {
    if (!enabled || !active) return;
    Deno.stderr.writeSync(encoder.encode(`\r\x1b[K${formatProgress(done, total, sent, failed)}`));
    shown = true;
  };
  const hide = () => {
    if (shown) Deno.stderr.writeSync(encoder.encode("\r\x1b[K"));
    shown = false;
  };
  return {
    start() {
      active = true;
      draw();
    },
    sent() {
      sent++;
      draw();
    },
    feedDone(ok: boolean) {
      done++;
      if (!ok) failed++;
      draw();
    },
    /** Around each log line. */
    before: hide,
    after: draw,
    stop() {
      active = false;
      hide();
    },
  };
}

/** `courier once`: loaded by onceCommand.run only when the command runs. */
export async function run(argv: string[], logFormat?: LogFormat): Promise<number> {
  const { values } = parseCommandArgs("once", argv, {
    ...RUN_OPTIONS,
    feed: { type: "string", multiple: true },
    summary: { type: "boolean" },
  });
  const { configPath, dryRun, concurrency, messengerApi, logLevel } = readRunFlags("once", values);
  // A dry run sends nothing: it needs no token.
  const settings = await loadSettings(configPath, { token: !dryRun });
  const feeds = selectFeeds("once", settings, values.feed ?? []);
  const progress = progressLine(feeds.length);
  const logger = stderrLogger(logFormat, logLevel, progress);
  for (const warning of settings.warnings ?? []) logger.warn(warning);

  const runtime = await Runtime.open({
    leaseAll: true,
    settings,
    feeds,
    dryRun,
    messengerApi,
    logger,
    writeOut,
  });
  // The first Ctrl-C (or SIGTERM) starts no new feed and lets the sends under way finish;
  // the summary is still printed. A second one exits at once.
  const stop = new AbortController();
  let stoppedBy: StopSignal | null = null;
  const removeListeners = onStopSignals((signal) => {
    stoppedBy = signal;
    logger.warn("stopping: the sends under way finish, then the summary (again to stop now)", {
      signal,
    });
    stop.abort(new Error(`${signal} received`));
  });
  try {
    progress.start();
    const summary = await runOnce({
      feeds,
      read: readFeed,
      ...runtime.forwarderParts,
      logger,
      concurrency,
      serialize: dryRun,
      signal: stop.signal,
      onSent: () => progress.sent(),
      onFeedDone: (result) => progress.feedDone(result.error === null),
    });
    progress.stop();
    if (!dryRun) await runtime.maintain();
    if (summaryWanted(summary.results, { summary: values.summary === true, dryRun })) {
      writeOut(
        (dryRun ? "\n" : "") + formatSummary(summary.results, dryRun) +
          (dryRun ? "\n(dry run: nothing was sent or recorded)\n" : "\n"),
      );
    }
    if (summary.fatal !== null) console.error(errorLine(`courier once: ${summary.fatal}`));
    if (stoppedBy !== null) return EXIT_CODE[stoppedBy];
    return summary.results.every((r) => r.error === null) ? 0 : 1;
  } finally {
    removeListeners();
    await runtime.close();
  }
}
