import type { Command } from "./command.ts";

export const schemaCommand: Command = {
  name: "schema",
  summary: "print the config's JSON Schema (draft 2020-12)",
  help: `Usage: courier schema

Prints the JSON Schema of the config file on stdout. Save it and point your editor at it:
  courier schema > courier.schema.json
  # first line of config.yml:
  # yaml-language-server: $schema=./courier.schema.json`,
  // The implementation (and its dependencies) is loaded only when this command runs.
  run: async (argv) => (await import("./schema_run.ts")).run(argv),
};
