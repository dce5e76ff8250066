import { configSchema } from "../config/schema.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";

export const schemaCommand: Command = {
  name: "schema",
  summary: "print the config's JSON Schema (draft 2020-12)",
  help: `Usage: courier schema

Prints the JSON Schema of the config file on stdout. Save it and point your editor at it:
  courier schema > courier.schema.json
  # first line of config.yml:
  # yaml-language-server: $schema=./courier.schema.json`,
  run(argv) {
    parseCommandArgs("schema", argv, {});
    console.log(JSON.stringify(configSchema(), null, 2));
    return Promise.resolve(0);
  },
};
