import { configPathFrom, loadSettings } from "../config/load.ts";
// Not mod.ts: that loads the parser, which a steady-state run never needs (read.ts loads it
// when a body first needs parsing).
import { readFeed } from "../feeds/read.ts";
import { runOnce } from "../forward/once.ts";
import { messengerApiFrom, Runtime, selectFeeds } from "../forward/runtime.ts";
import { formatProgress, formatSummary } from "../forward/summary.ts";
import { stderrLogger } from "../log/logger.ts";
import { parseCommandArgs, parsePositiveInt } from "./args.ts";
import { DEFAULT_CONCURRENCY } from "./once.ts";

const encoder = new TextEncoder();
const writeOut = (text: string) => Deno.stdout.writeSync(encoder.encode(text));

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
  const messengerApi = messengerApiFrom(values["messenger-api"]);
  const settings = await loadSettings(configPathFrom(values.config));
  const feeds = selectFeeds("once", settings, values.feed ?? []);
  const logger = stderrLogger();

  const runtime = await Runtime.open({
    settings,
    feeds,
    dryRun,
    messengerApi,
    logger,
    writeOut,
  });
  try {
    const progress = progressLine(feeds.length);
    const summary = await runOnce({
      feeds,
      read: readFeed,
      state: runtime.state,
      outbox: runtime.outbox,
      successLog: runtime.successLog,
      logger,
      concurrency,
      migrations: runtime.migrations,
      serialize: dryRun,
      fetchClientFor: runtime.fetchClientFor,
      onSent: () => progress.sent(),
      onFeedDone: (result) => progress.feedDone(result.error === null),
    });
    progress.clear();
    if (!dryRun) await runtime.maintain(new Date(), logger);
    writeOut(
      (dryRun ? "\n" : "") + formatSummary(summary.results, dryRun) +
        (dryRun ? "\n(dry run: nothing was sent or recorded)\n" : "\n"),
    );
    if (summary.fatal !== null) console.error(`courier once: ${summary.fatal}`);
    return summary.results.every((r) => r.error === null) ? 0 : 1;
  } finally {
    await runtime.close();
  }
}
