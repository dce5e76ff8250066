/** The config cannot be used. `message` holds one line per problem, each naming file and place. */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly exitCode = 2;
  /** `missing`: the file does not exist, so a caller may offer its own way out. */
  constructor(readonly problems: string[], readonly missing = false) {
    super(problems.join("\n"));
  }
}
