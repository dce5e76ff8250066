/** One subcommand of the `courier` executable. */
export interface Command {
  /** The word after `courier`. */
  name: string;
  /** One line for the top-level help. */
  summary: string;
  /** Full help text printed by `courier <name> --help`. */
  help: string;
  /** Runs the command; resolves to the process exit code. */
  run(argv: string[]): Promise<number>;
}
