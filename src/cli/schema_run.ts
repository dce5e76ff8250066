import { configSchema } from "../config/schema.ts";
import { parseCommandArgs } from "./args.ts";

/** `courier schema`: loaded by schemaCommand.run only when the command runs. */
export function run(argv: string[]): Promise<number> {
  parseCommandArgs("schema", argv, {});
  console.log(JSON.stringify(configSchema(), null, 2));
  return Promise.resolve(0);
}
