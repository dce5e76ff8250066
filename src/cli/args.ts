import { parseArgs, type ParseArgsConfig } from "node:util";
import { suggest } from "../config/suggest.ts";
import { UsageError } from "./errors.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses a subcommand's arguments strictly. node's own errors are reworded into one line that
 * names the command, so a typo never surfaces as a stack trace.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '(-[^']*)'/.exec(message)?.[1];
    const said = unknown === undefined
      ? message.replace(/\. To specify a positional.*$/s, "")
      : `unknown option ${unknown}${didYouMean(unknown, options)}`;
    throw new UsageError(`courier ${command}: ${said} (see 'courier ${command} --help')`);
  }
}

/** "; did you mean --json?" for `--jsn`, or "" when no option is close. */
function didYouMean(flag: string, options: Options): string {
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
