/** Log levels in increasing severity. */
export type Level = "debug" | "info" | "warn" | "error";

const RANK: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const COLOR: Record<Level, string> = {
  debug: "\x1b[90m",
  info: "\x1b[36m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
};

export type Fields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
}

export interface LoggerOptions {
  format: "text" | "json";
  color: boolean;
  level: Level;
  /** Where lines go; stderr in production, an array in tests. */
  write: (line: string) => void;
  now?: () => Date;
}

function formatValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return /[\s"=]/.test(text) ? JSON.stringify(text) : text;
}

/** A structured logger: readable `key=value` text, or one JSON object a line. */
export function createLogger(options: LoggerOptions): Logger {
  const now = options.now ?? (() => new Date());
  const emit = (level: Level, message: string, fields: Fields = {}) => {
    if (RANK[level] < RANK[options.level]) return;
    const time = now().toISOString();
    if (options.format === "json") {
      options.write(JSON.stringify({ time, level, msg: message, ...fields }));
      return;
    }
    const tag = level.toUpperCase().padEnd(5);
    const head = options.color ? `${COLOR[level]}${tag}\x1b[0m` : tag;
    const tail = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${formatValue(v)}`)
      .join(" ");
    options.write(`${time} ${head} ${message}${tail ? " " + tail : ""}`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

const encoder = new TextEncoder();

export const LEVELS: readonly Level[] = ["debug", "info", "warn", "error"];

/** The level a string names, or undefined. */
export function levelFrom(value: string | undefined): Level | undefined {
  return LEVELS.find((l) => l === value);
}

/**
 * The process logger on stderr. Format comes from `--log-format` (set by main) or
 * `$COURIER_LOG_FORMAT`; colour only on a TTY and never when `NO_COLOR` is set.
 */
export function stderrLogger(format?: "text" | "json", level?: Level): Logger {
  const envFormat = Deno.env.get("COURIER_LOG_FORMAT");
  const chosen = format ?? (envFormat === "json" ? "json" : "text");
  const noColor = (Deno.env.get("NO_COLOR") ?? "") !== "";
  return createLogger({
    format: chosen,
    color: !noColor && Deno.stderr.isTerminal(),
    // A flag (`level`) wins over the environment; an unknown value there means the default.
    level: level ?? levelFrom(Deno.env.get("COURIER_LOG_LEVEL")) ?? "info",
    write: (line) => Deno.stderr.writeSync(encoder.encode(line + "\n")),
  });
}
