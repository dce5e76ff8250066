import { parseArgs, type ParseArgsConfig } from "node:util";
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
    throw new UsageError(
      `courier ${command}: ${message.replace(/\. To specify a positional.*$/s, "")}` +
        ` (see 'courier ${command} --help')`,
    );
  }
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
