import type { LogFormat } from "../log/logger.ts";

/** What main gives every command besides its arguments. */
export interface RunContext {
  /** Every command (what `completions` and `help` describe): no command imports the list. */
  commands: readonly Command[];
  /** `--log-format`, wherever it stood; undefined: `$COURIER_LOG_FORMAT`, else text. */
  logFormat: LogFormat | undefined;
}

/** One subcommand of the `courier` executable. */
export interface Command {
  /** The word after `courier`. */
  name: string;
  /** One line for the top-level help. */
  summary: string;
  /** Full help text printed by `courier <name> --help`. */
  help: string;
  /** Runs the command; resolves to the process exit code. */
  run(argv: string[], context: RunContext): Promise<number>;
}
