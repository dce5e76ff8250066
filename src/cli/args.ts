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
    const args = negativeValues(argv, options);
    return parseArgs({ args, options, strict: true, allowPositionals });
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

/**
 * `--grace -5` as `--grace=-5`: a negative number after an option that takes a value is that
 * value (no option's name starts with a digit), so the option's own check says what is wrong
 * with it, instead of advice to write it with `=` that the check then refuses.
 */
export function negativeValues(argv: string[], options: ParseArgsOptionsConfig): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return out.concat(argv.slice(i));
    const name = arg.startsWith("--")
      ? arg.slice(2)
      : /^-[^-]$/.test(arg)
      ? Object.keys(options).find((key) => options[key].short === arg[1])
      : undefined;
    const next = argv[i + 1];
    if (
      name !== undefined && Object.hasOwn(options, name) && options[name].type === "string" &&
      next !== undefined && /^-\d/.test(next)
    ) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
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

/**
 * A duration flag's value, "5s", "500ms", "2m" or a bare number of seconds, in milliseconds;
 * one under `min`, or no duration, is a usage error saying the flag must be `what`.
 */
export function parseDuration(
  command: string,
  flag: string,
  value: string,
  min: number,
  what: string,
): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const n = m ? Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "m" ? 60_000 : 1000) : NaN;
  if (!Number.isFinite(n) || Math.round(n) < min) {
    throw new UsageError(`courier ${command}: --${flag} must be ${what}, got "${value}"`);
  }
  return Math.round(n);
}
