/**
 * The help texts as data: the top-level help, and the options each command's help lists. The
 * completion scripts and the man page are generated from these, so none of them can drift from
 * what `--help` says.
 */
import { suggest } from "../config/suggest.ts";
import { VERSION } from "../version.ts";
import type { Command } from "./command.ts";

export const GLOBAL_OPTIONS_HELP = `Global options:
  --log-format text|json  log format on stderr (default text; also $COURIER_LOG_FORMAT)
  -h, --help              show help (also after a command)
  -V, --version           print the version`;

export function topHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `courier ${VERSION}: forward RSS/Atom feeds to Telegram channels, browse SQLite databases

Usage: courier <command> [options]

Commands:
${lines.join("\n")}

${GLOBAL_OPTIONS_HELP}

Exit codes: 0 success, 1 the work ran and something failed, 2 usage or config error.
`;
}

/** One option as a help text lists it: `  -c, --config FILE  what it does`. */
export interface HelpOption {
  long: string;
  short?: string;
  /** The value's placeholder (`FILE`, `rss|atom`), absent for a switch. */
  value?: string;
  description: string;
}

const OPTION_LINE = /^ {2}(?:-([A-Za-z]), )?--([a-z][a-z0-9-]*)(?: ([^\s]+))?(?: {2,}(.*))?$/;

/** The options a help text lists, in its order. */
export function helpOptions(help: string): HelpOption[] {
  const options: HelpOption[] = [];
  for (const line of help.split("\n")) {
    const m = OPTION_LINE.exec(line);
    if (m === null) continue;
    const option: HelpOption = { long: m[2], description: (m[4] ?? "").trim() };
    if (m[1]) option.short = m[1];
    if (m[3]) option.value = m[3];
    options.push(option);
  }
  return options;
}

/** One line for a word that is no command, with the likely one when it looks like a typo. */
export function unknownCommand(name: string, commands: readonly Command[]): string {
  // What other tools print their version with.
  if (name === "version" || name === "-v" || name === "-version") {
    return `courier: unknown ${name.startsWith("-") ? "option" : "command"} ${
      name.startsWith("-") ? name : `"${name}"`
    }; did you mean --version? (see 'courier --help')`;
  }
  if (name.startsWith("-")) {
    const hint = suggest(name.replace(/^-+/, ""), ["help", "version", "log-format"]);
    return `courier: unknown option ${name}${hint ? `; did you mean --${hint}?` : ""} ` +
      "(options go after the command; see 'courier --help')";
  }
  const hint = suggest(name, [...commands.map((c) => c.name), "help", "version"]);
  const shown = hint === "version" ? "--version" : `"${hint}"`;
  return `courier: unknown command "${name}"${hint ? `; did you mean ${shown}?` : ""} ` +
    "(see 'courier --help')";
}
