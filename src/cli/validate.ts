import type { Command } from "./command.ts";

export const validateCommand: Command = {
  name: "validate",
  summary: "check the config and print the settings in effect",
  help: `Usage: courier validate [-c FILE] [--json]

Checks the config and prints the effective settings of every feed (defaults applied, the
token and proxy passwords redacted). Every problem is reported, one line each, as
FILE:LINE:COL: key.path: what is wrong.

Options:
  -c, --config FILE  config file (default: $COURIER_CONFIG, else ./config.yml)
  --json             print the effective settings as JSON

Exit codes: 0 valid, 2 invalid or unreadable.`,
  // The implementation (and its dependencies) is loaded only when this command runs.
  run: async (argv) => (await import("./validate_run.ts")).run(argv),
};
