import type { Command } from "./command.ts";

export const statusCommand: Command = {
  name: "status",
  summary: "show each feed's next run, last success, last run and entries sent",
  help: `Usage: courier status [-c FILE] [--json]

Prints, for every feed of the config in config order: its cron schedule, its next run (in
the machine's time zone, or $TZ's), its last success (time and age, as the database
records it), its last run's outcome and error, the entries sent in total and in the last 24
hours, and the entries the messenger refused in every form (never posted: how many, and the
latest with their titles and links), from the database.

It only reads: the database is opened read-only, nothing is created or migrated and the data
directory's lock is not taken, so it works while \`courier forward\` or \`courier once\` runs.
With no state at the configured path (nothing ran yet, or data_dir is not where the runs
keep it) it says so and exits 1. A feed that has not run yet shows "never".

On a terminal it prints an aligned table, in colour unless $NO_COLOR is set, with a failed
feed's error on an indented line cut to the terminal's width; piped, the same table without
colours and with the full error.

Options:
  -c, --config FILE  config file (default: $COURIER_CONFIG, else ./config.yml)
  --json             print one JSON document: an array with one object per feed (see README)

Exit codes: 0 reported (even if feeds have failed), 1 no state at the configured path or it
could not be read, 2 usage or config error, or a database written by a newer courier.`,
  // The implementation (and its dependencies) is loaded only when this command runs.
  run: async (argv) => (await import("./status_run.ts")).run(argv),
};
