import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { suggest } from "../config/suggest.ts";
import { UsageError } from "./errors.ts";

/**
 * Parses a subcommand's arguments strictly (node's `util.parseArgs`), reworded into one line
 * that names the command, so a typo never surfaces as a stack trace.
 */
export function parseCommandArgs<const O extends ParseArgsOptionsConfig>(
  command: string,
  argv: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) throw error;
    const message = (error as Error).message;
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    const said = unknown === undefined
      ? message.replace(/\s*\n\s*/g, " ")
      : `unknown option ${unknown}${didYouMean(unknown, options)}`;
    throw new UsageError(`courier ${command}: ${said} (see 'courier ${command} --help')`);
  }
}

/** "; did you mean --json?" for `--jsn`, or "" when no option is close. */
function didYouMean(flag: string, options: ParseArgsOptionsConfig): string {
  const known = [...Object.keys(options), "help", "log-format"];
  const name = flag.replace(/^-+/, "").replace(/=.*$/, "");
  const hint = suggest(name, known);
  return hint === null ? "" : `; did you mean --${hint}?`;
}

/** Parses a positive integer flag value, naming the flag when it is not one. */
export function parsePositiveInt(command: string, flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(
      `courier ${command}: --${flag} must be a positive integer, got "${value}"`,
    );
  }
  return n;
}

/** "5s", "500ms", "2m", or a bare number of seconds → milliseconds; null if it is none. */
export function parseDuration(value: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) return null;
  const n = Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "m" ? 60_000 : 1000);
  return Number.isFinite(n) ? Math.round(n) : null;
}
