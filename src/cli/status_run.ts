import { configPathFrom, loadSettings } from "../config/load.ts";
import { nextCronRun } from "../config/cron.ts";
import { type FeedStatus, renderStatusJson, renderStatusTable } from "./status_view.ts";
import { readLastSuccess } from "../store/last_success.ts";
import { describeLocation, stateLocation } from "../store/location.ts";
import { readFeedRecords, type RecordedRun } from "../store/status.ts";
import { parseCommandArgs } from "./args.ts";
import { UserError } from "./errors.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The run as status shows it. A row standing for several no-op runs keeps the first one's
 * start; the latest run's own start is not recorded, so its finish stands for both (these
 * runs take moments) rather than a start hours before it.
 */
function lastRunOf(run: RecordedRun | null) {
  if (run === null) return null;
  const startedAt = run.runCount > 1 ? run.finishedAt : run.startedAt;
  return { startedAt, finishedAt: run.finishedAt, outcome: run.outcome, error: run.error };
}

/** Writes all of `text` (a pipe may take it in pieces); a reader gone away ends it quietly. */
function writeOut(text: string): void {
  const bytes = new TextEncoder().encode(text);
  try {
    for (let at = 0; at < bytes.length;) at += Deno.stdout.writeSync(bytes.subarray(at));
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
}

function terminalWidth(): number | null {
  try {
    return Deno.consoleSize().columns || null;
  } catch {
    return null;
  }
}

/** `courier status`: loaded by statusCommand.run only when the command runs. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs("status", argv, {
    config: { type: "string", short: "c" },
    json: { type: "boolean" },
  });
  // status never sends: it neither needs nor reads the token.
  const settings = await loadSettings(configPathFrom(values.config), { token: false });
  const now = new Date();
  const names = settings.feeds.map((f) => f.name);
  const location = stateLocation(settings);
  const records = await readFeedRecords(location, names, new Date(now.getTime() - DAY_MS));
  if (records === null) {
    // "never" for every feed would hide a data_dir that is not where the runs keep the state.
    throw new UserError(
      `courier status: no state at ${describeLocation(location)}: nothing has run with ` +
        `${settings.configPath} yet, or the runs keep their state elsewhere (compare ` +
        "data_dir and database in 'courier validate')",
      1,
    );
  }
  let successes: Map<string, Date>;
  try {
    // The database's record is authoritative (the file is a copy); a state from before the
    // database kept them has only the file.
    successes = records.lastSuccess?.size
      ? records.lastSuccess
      : await readLastSuccess(settings.lastLoadedPath);
  } catch (error) {
    throw new UserError(`courier status: ${(error as Error).message}`, 1);
  }
  const leaseOf = (channel: string) => {
    if (location.kind !== "remote") return undefined;
    const lease = records.leases?.get(channel);
    // The server's view of the expiry, placed on this machine's clock for display.
    return lease
      ? { holder: lease.holder, expiresAt: new Date(now.getTime() + lease.remainingMs) }
      : null;
  };
  // Many feeds share a few schedules: one Cron each.
  const nextRuns = new Map<string, Date | null>();
  const nextRun = (cron: string) => {
    if (!nextRuns.has(cron)) nextRuns.set(cron, nextCronRun(cron, now));
    return nextRuns.get(cron)!;
  };
  const feeds: FeedStatus[] = settings.feeds.map((feed) => {
    const record = records.get(feed.name);
    return {
      name: feed.name,
      cron: feed.cron,
      nextRun: nextRun(feed.cron),
      lastSuccess: successes.get(feed.name) ?? null,
      lastRun: lastRunOf(record?.lastRun ?? null),
      sentTotal: record?.sentTotal ?? 0,
      sent24h: record?.sentSince ?? 0,
      refusedTotal: record?.refusedTotal ?? 0,
      refused: record?.refused ?? [],
      filteredTotal: record?.filteredTotal ?? 0,
      lease: leaseOf(feed.channel),
    };
  });
  if (values.json) {
    writeOut(renderStatusJson(feeds, now));
    return 0;
  }
  const terminal = Deno.stdout.isTerminal();
  writeOut(renderStatusTable(feeds, {
    now,
    width: terminal ? terminalWidth() : null,
    color: terminal && (Deno.env.get("NO_COLOR") ?? "") === "",
  }));
  return 0;
}
