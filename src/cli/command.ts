/** One subcommand of the `courier` executable. */
export interface Command {
  /** The word after `courier`. */
  name: string;
  /** One line for the top-level help. */
  summary: string;
  /** Full help text printed by `courier <name> --help`. */
  help: string;
  /**
   * Runs the command; resolves to the process exit code. `commands` is every command (what
   * `completions` and `help` describe), passed in so that no command imports the list.
   */
  run(argv: string[], commands: readonly Command[]): Promise<number>;
}
