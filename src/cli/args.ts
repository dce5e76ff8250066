import { suggest } from "../config/suggest.ts";
import { UsageError } from "./errors.ts";

/** An option as node's util.parseArgs declares it, the subset courier's commands use. */
export interface Option {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** The value when the option is not given. */
  default?: string | boolean | string[];
}
export type Options = Record<string, Option>;

type One<O extends Option> = O["type"] extends "boolean" ? boolean : string;
type Read<O extends Option> = O["multiple"] extends true ? One<O>[] : One<O>;
/** The values read for `O`: absent when not given and without a default. */
export type Values<O extends Options> =
  & { [K in keyof O as O[K] extends { default: unknown } ? K : never]: Read<O[K]> }
  & { [K in keyof O as O[K] extends { default: unknown } ? never : K]?: Read<O[K]> };

/**
 * Parses a subcommand's arguments strictly, reworded into one line that names the command, so
 * a typo never surfaces as a stack trace.
 */
export function parseCommandArgs<const O extends Options>(
  command: string,
  argv: string[],
  options: O,
  allowPositionals = false,
): { values: Values<O>; positionals: string[] } {
  try {
    return parseStrict(negativeValues(argv, options), options, allowPositionals);
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    const said = error.unknown === undefined
      ? error.message
      : `unknown option ${error.unknown}${didYouMean(error.unknown, options)}`;
    throw new UsageError(`courier ${command}: ${said} (see 'courier ${command} --help')`);
  }
}

/**
 * `--grace -5` as `--grace=-5`: a negative number after an option that takes a value is that
 * value (no option's name starts with a digit), so the option's own check says what is wrong
 * with it, instead of advice to write it with `=` that the check then refuses.
 */
export function negativeValues(argv: string[], options: Options): string[] {
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

class ArgsError extends Error {
  constructor(message: string, readonly unknown?: string) {
    super(message);
  }
}

/**
 * node's `util.parseArgs({ strict: true })`, token for token and with its messages (a test
 * holds the two to the same answers). Written here because importing node:util starts node's
 * compatibility layer: ~5 ms of every command's start-up, 7 % of a one-feed `once`.
 */
function parseStrict<O extends Options>(argv: string[], options: O, allowPositionals: boolean) {
  const values: Record<string, unknown> = Object.create(null);
  const positionals: string[] = [];
  const own = (name: string): Option | undefined =>
    Object.hasOwn(options, name) ? options[name] : undefined;
  const longOf = (short: string) =>
    Object.keys(options).find((name) => options[name].short === short) ?? short;
  const isString = (name: string) => own(name)?.type === "string";

  const option = (name: string, rawName: string, value?: string, inline = false) => {
    const declared = own(name);
    if (declared === undefined) throw new ArgsError(`Unknown option '${rawName}'`, rawName);
    const shown = `${declared.short ? `-${declared.short}, ` : ""}--${name}`;
    if (declared.type === "string" && value === undefined) {
      throw new ArgsError(`Option '${shown} <value>' argument missing`);
    }
    if (declared.type === "boolean" && value !== undefined) {
      throw new ArgsError(`Option '${shown}' does not take an argument`);
    }
    if (!inline && value !== undefined && value.length > 1 && value[0] === "-") {
      const example = rawName.startsWith("--")
        ? `'${rawName}=-XYZ'`
        : `'--${name}=-XYZ' or '${rawName}-XYZ'`;
      throw new ArgsError(
        `Option '${rawName}' argument is ambiguous; to give a value starting with a dash use ${example}`,
      );
    }
    const read = value ?? true;
    if (declared.multiple) ((values[name] ??= []) as unknown[]).push(read);
    else values[name] = read;
  };
  const positional = (value: string) => {
    if (!allowPositionals) {
      throw new ArgsError(
        `Unexpected argument '${value}'. This command does not take positional arguments`,
      );
    }
    positionals.push(value);
  };

  const rest = [...argv];
  for (let arg = rest.shift(); arg !== undefined; arg = rest.shift()) {
    if (arg === "--") {
      rest.forEach(positional);
      break;
    }
    if (arg.length < 2 || arg[0] !== "-") {
      positional(arg);
    } else if (arg[1] !== "-") {
      const name = longOf(arg[1]);
      if (arg.length === 2) {
        // `-c value`: the next argument is the value, whatever it looks like.
        option(name, arg, isString(name) && rest.length > 0 ? rest.shift() : undefined);
      } else if (isString(name)) {
        option(name, `-${arg[1]}`, arg.slice(2), true);
      } else {
        // `-abc` is `-a -b -c`, up to a string option, which takes the rest as its value.
        const expanded: string[] = [];
        for (let i = 1; i < arg.length; i++) {
          if (!isString(longOf(arg[i]))) expanded.push(`-${arg[i]}`);
          else {
            expanded.push(`-${arg.slice(i)}`);
            break;
          }
        }
        rest.unshift(...expanded);
      }
    } else if (!arg.includes("=", 3)) {
      const name = arg.slice(2);
      option(name, arg, isString(name) && rest.length > 0 ? rest.shift() : undefined);
    } else {
      const equals = arg.indexOf("=");
      const name = arg.slice(2, equals);
      option(name, `--${name}`, arg.slice(equals + 1), true);
    }
  }
  for (const [name, { default: value }] of Object.entries(options)) {
    if (value !== undefined && values[name] === undefined) values[name] = value;
  }
  return { values: values as Values<O>, positionals };
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
