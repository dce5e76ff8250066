import { logfmtLine } from "./logfmt.ts";

/** Log levels in increasing severity. */
export const LEVELS = ["debug", "info", "warn", "error"] as const;
export type Level = typeof LEVELS[number];

const COLOR: Record<Level, string> = {
  debug: "\x1b[90m",
  info: "\x1b[36m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
};

export type Fields = Record<string, unknown>;

export type LogFormat = "text" | "json";

export interface Logger {
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
}

export interface LoggerOptions {
  format: LogFormat;
  color: boolean;
  level: Level;
  /** Where lines go; stderr in production, an array in tests. */
  write: (line: string) => void;
  now?: () => Date;
  /** Prefix each line with its syslog priority, for journald (see `journalStream`). */
  journal?: boolean;
}

/** syslog priorities (sd-daemon(3)): journald reads a `<N>` line prefix as the line's priority. */
const PRIORITY: Record<Level, number> = { debug: 7, info: 6, warn: 4, error: 3 };

/**
 * A structured logger. Text is logfmt (`time=… level=… msg="…" key=value`), which Loki's
 * `| logfmt` and lnav parse; JSON is one object a line with the same keys. With `journal`,
 * each line starts with its syslog priority (`<3>` for an error) so `journalctl -p` filters.
 */
export function createLogger(options: LoggerOptions): Logger {
  const now = options.now ?? (() => new Date());
  const emit = (level: Level, message: string, fields: Fields = {}) => {
    if (LEVELS.indexOf(level) < LEVELS.indexOf(options.level)) return;
    const time = now().toISOString();
    const prefix = options.journal ? `<${PRIORITY[level]}>` : "";
    if (options.format === "json") {
      options.write(prefix + JSON.stringify({ time, level, msg: message, ...fields }));
      return;
    }
    // Coloured only on a terminal, where a person reads it; the value stays the level's name.
    const shown = options.color ? `${COLOR[level]}${level}\x1b[0m` : level;
    const head = `time=${time} level=${shown} `;
    options.write(prefix + head + logfmtLine([["msg", message], ...Object.entries(fields)]));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

const encoder = new TextEncoder();

/** The level a string names, or undefined. */
export function levelFrom(value: string | undefined): Level | undefined {
  return LEVELS.find((l) => l === value);
}

/**
 * Whether stderr is systemd's journal stream: `$JOURNAL_STREAM` names its device and inode
 * ("dev:ino"), and it must still be the stream we write to (a child of the service whose
 * stderr was redirected keeps the variable). Linux only.
 */
export function journalStream(
  env: string | undefined,
  stderr: () => { dev: number; ino: number | null },
): boolean {
  const m = /^(\d+):(\d+)$/.exec(env ?? "");
  if (m === null) return false;
  try {
    const { dev, ino } = stderr();
    return String(dev) === m[1] && String(ino) === m[2];
  } catch {
    return false;
  }
}

/** Whether this process's stderr is systemd's journal stream (see journalStream). */
export function stderrIsJournal(): boolean {
  return Deno.build.os === "linux" &&
    journalStream(Deno.env.get("JOURNAL_STREAM"), () => Deno.statSync("/proc/self/fd/2"));
}

/** An error line for stderr, outside the logger, with its priority under journald. */
export function errorLine(text: string): string {
  return stderrIsJournal() ? `<${PRIORITY.error}>${text}` : text;
}

/**
 * The process logger on stderr. Format: `format` (the `--log-format` flag), else
 * `$COURIER_LOG_FORMAT`; colour only on a TTY and never when `NO_COLOR` is set; priority
 * prefixes under systemd.
 */
export function stderrLogger(
  format?: LogFormat,
  level?: Level,
  /** Called before each line is written (once clears its progress line), then `after`. */
  around?: { before(): void; after(): void },
): Logger {
  const envFormat = Deno.env.get("COURIER_LOG_FORMAT");
  const chosen = format ?? (envFormat === "json" ? "json" : "text");
  const noColor = (Deno.env.get("NO_COLOR") ?? "") !== "";
  const journal = stderrIsJournal();
  return createLogger({
    format: chosen,
    color: !noColor && !journal && Deno.stderr.isTerminal(),
    // A flag (`level`) wins over the environment; an unknown value there means the default.
    level: level ?? levelFrom(Deno.env.get("COURIER_LOG_LEVEL")) ?? "info",
    journal,
    write: (line) => {
      around?.before();
      Deno.stderr.writeSync(encoder.encode(line + "\n"));
      around?.after();
    },
  });
}

/** An error's first line, for a log field. */
export function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0];
}
