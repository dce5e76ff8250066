/**
 * What `courier status` prints, as pure functions of the feeds' state and the time: a table
 * for a terminal, the same table without colours or cutting when piped, and `--json`.
 *
 * `--json` prints one JSON document, an array with one object per feed in config order. Its
 * keys are stable (new keys may be added; none renamed or removed):
 *
 *   name          string   the feed's name in the config
 *   cron          string   its five-field schedule
 *   next_run      string | null   when it is next due (ISO 8601, UTC); null: not scheduled
 *   last_success  { time: string, age_seconds: number } | null
 *                          when its last successful run finished; null: never succeeded
 *   last_run      { started_at: string, finished_at: string, outcome: string,
 *                   error: string | null, age_seconds: number } | null
 *                          its latest finished run: outcome "ok" or "failed"; age_seconds
 *                          counts from finished_at; null: never ran
 *   sent_total    number   entries the messenger accepted for it, ever (as far as kept)
 *   sent_24h      number   of those, in the 24 hours before now
 *   refused_total number   entries the messenger refused in every form: recorded, never
 *                          posted (as far as kept)
 *   refused_latest [{ id: string, title: string, link: string | null, refused_at: string }]
 *                          the latest of them, newest first (at most 5)
 *   filtered_total number  entries its filter dropped: recorded as seen, never posted (as far
 *                          as kept)
 *
 * Ages are whole seconds, never negative (a time after `now`, from a clock stepped back,
 * counts as 0).
 */
import type { RefusedEntry } from "../store/status.ts";

export interface LastRun {
  startedAt: Date;
  finishedAt: Date;
  /** "ok" or "failed", as recorded. */
  outcome: string;
  error: string | null;
}

export interface FeedStatus {
  name: string;
  cron: string;
  nextRun: Date | null;
  lastSuccess: Date | null;
  lastRun: LastRun | null;
  sentTotal: number;
  sent24h: number;
  /** Entries refused in every form (never posted); default 0. */
  refusedTotal?: number;
  /** The latest of them, newest first; default none. */
  refused?: readonly RefusedEntry[];
  /** Entries the feed's filter dropped (never posted); default 0. */
  filteredTotal?: number;
  /** With remote state: the process holding the feed's channel, and until when; else absent. */
  lease?: { holder: string; expiresAt: Date } | null;
}

export interface TableOptions {
  now: Date;
  /** Terminal columns: error lines are cut to fit. null: never cut (not a terminal). */
  width: number | null;
  color: boolean;
  /** IANA zone for clock times; default: the machine's (as cron uses). */
  timeZone?: string;
}

const STYLE = {
  bold: "\x1b[1m",
  green: "\x1b[32m",
  red: "\x1b[31m",
  yellow: "\x1b[33m",
  reset: "\x1b[0m",
};

function ageSeconds(then: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
}

/** "45 s", "3 min", "5 h", "12 d": coarse enough to read at a glance. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

/** A clock time in `timeZone`: "HH:MM" on the same day as `now`, else "YYYY-MM-DD HH:MM". */
export function formatClock(date: Date, now: Date, timeZone?: string): string {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  const parts = (d: Date) => {
    const p = Object.fromEntries(format.formatToParts(d).map((x) => [x.type, x.value]));
    return { day: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
  };
  const at = parts(date);
  return at.day === parts(now).day ? at.time : `${at.day} ${at.time}`;
}

/** Control characters (a feed server's text can carry escapes) and line breaks become spaces. */
function oneLine(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\x00-\x1f\x7f-\x9f\s]+/g, " ").trim();
}

function cut(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? "…".slice(0, width) : chars.slice(0, width - 1).join("") + "…";
}

/** "in 3 min" for a time ahead of `now`, "3 min ago" for one behind it. */
export function formatRelative(date: Date, now: Date): string {
  const seconds = Math.floor((date.getTime() - now.getTime()) / 1000);
  return seconds > 0 ? `in ${formatDuration(seconds)}` : `${formatDuration(-seconds)} ago`;
}

const HEADER = ["FEED", "CRON", "NEXT RUN", "LAST SUCCESS", "LAST RUN", "SENT", "SENT 24H"];
const RIGHT = new Set([5, 6]);
const OUTCOME_COLUMN = 4;

type Style = Exclude<keyof typeof STYLE, "reset">;

/**
 * The table: one row per feed, columns aligned, numbers right-aligned, and under a feed whose
 * last run failed its error on an indented line (cut to `width` on a terminal).
 */
export function renderStatusTable(feeds: readonly FeedStatus[], options: TableOptions): string {
  const { now, timeZone } = options;
  if (feeds.length === 0) return "no feeds in the config\n";
  const paint = (text: string, style: Style) =>
    options.color ? `${STYLE[style]}${text}${STYLE.reset}` : text;
  const when = (date: Date) => `${formatClock(date, now, timeZone)} (${formatRelative(date, now)})`;
  const rows = feeds.map((f) => [
    oneLine(f.name),
    oneLine(f.cron),
    f.nextRun === null ? "-" : when(f.nextRun),
    f.lastSuccess === null ? "never" : when(f.lastSuccess),
    f.lastRun?.outcome ?? "-",
    String(f.sentTotal),
    String(f.sent24h),
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[], styleOf: (i: number) => Style | null) =>
    cells
      .map((cell, i) => {
        // Padding stays outside the colour codes so that columns line up either way.
        const pad = " ".repeat(widths[i] - cell.length);
        const style = styleOf(i);
        const text = style === null ? cell : paint(cell, style);
        if (RIGHT.has(i)) return pad + text;
        return i === cells.length - 1 ? text : text + pad;
      })
      .join("  ")
      .trimEnd();
  const out = [line(HEADER, () => "bold")];
  feeds.forEach((feed, index) => {
    const state = rows[index][OUTCOME_COLUMN];
    const style: Style | null = state === "-" ? null : state === "ok" ? "green" : "red";
    out.push(line(rows[index], (i) => (i === OUTCOME_COLUMN ? style : null)));
    const run = feed.lastRun;
    if (run !== null && run.outcome !== "ok" && run.error !== null) {
      let text = `  error: ${oneLine(run.error)}`;
      if (options.width !== null) text = cut(text, options.width);
      out.push(paint(text, "red"));
    }
    out.push(...refusedLines(feed, options).map((text) => paint(text, "yellow")));
    const filtered = feed.filteredTotal ?? 0;
    if (filtered > 0) {
      out.push(
        `  filtered: ${filtered} ${filtered === 1 ? "entry" : "entries"} dropped by its filter`,
      );
    }
    if (feed.lease !== undefined) out.push(leaseLine(feed.lease, now));
  });
  return out.join("\n") + "\n";
}

/** Under a feed of remote state: which process runs it (its channel's lease holder). */
function leaseLine(lease: FeedStatus["lease"], now: Date): string {
  if (!lease) return "  held by: no process";
  const expired = lease.expiresAt.getTime() <= now.getTime();
  return `  held by: ${oneLine(lease.holder)} (${expired ? "expired" : "lease ends"} ` +
    `${formatRelative(lease.expiresAt, now)})`;
}

/**
 * Under a feed with refused entries: how many, then the latest (time, title, link), so what
 * never got posted can be found and posted by hand.
 */
function refusedLines(feed: FeedStatus, options: TableOptions): string[] {
  const total = feed.refusedTotal ?? 0;
  if (total === 0) return [];
  const latest = feed.refused ?? [];
  const lines = [
    `  refused: ${total} ${total === 1 ? "entry" : "entries"} the messenger would not take, ` +
    "never posted" + (latest.length > 0 ? "; latest:" : ""),
    ...latest.map((e) =>
      `    ${formatClock(e.at, options.now, options.timeZone)}  ` +
      oneLine(e.title === "" ? e.id : e.title) + (e.link === null ? "" : `  ${oneLine(e.link)}`)
    ),
  ];
  if (total > latest.length && latest.length > 0) {
    lines.push(`    and ${total - latest.length} more`);
  }
  return options.width === null ? lines : lines.map((line) => cut(line, options.width!));
}

/** The `--json` document described at the top of this file. */
export function renderStatusJson(feeds: readonly FeedStatus[], now: Date): string {
  const doc = feeds.map((f) => ({
    name: f.name,
    cron: f.cron,
    next_run: f.nextRun?.toISOString() ?? null,
    last_success: f.lastSuccess === null
      ? null
      : { time: f.lastSuccess.toISOString(), age_seconds: ageSeconds(f.lastSuccess, now) },
    last_run: f.lastRun === null ? null : {
      started_at: f.lastRun.startedAt.toISOString(),
      finished_at: f.lastRun.finishedAt.toISOString(),
      outcome: f.lastRun.outcome,
      error: f.lastRun.error,
      age_seconds: ageSeconds(f.lastRun.finishedAt, now),
    },
    sent_total: f.sentTotal,
    sent_24h: f.sent24h,
    refused_total: f.refusedTotal ?? 0,
    refused_latest: (f.refused ?? []).map((e) => ({
      id: e.id,
      title: e.title,
      link: e.link,
      refused_at: e.at.toISOString(),
    })),
    filtered_total: f.filteredTotal ?? 0,
    ...(f.lease === undefined ? {} : {
      lease: f.lease === null
        ? null
        : { holder: f.lease.holder, expires_at: f.lease.expiresAt.toISOString() },
    }),
  }));
  return JSON.stringify(doc, null, 2) + "\n";
}
