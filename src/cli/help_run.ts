import { COMMANDS } from "./commands.ts";
import { parseCommandArgs } from "./args.ts";
import { UsageError } from "./errors.ts";
import { topHelp } from "./help.ts";
import { manPage } from "./man.ts";
import { unknownCommand } from "./main.ts";

/** `courier help [COMMAND] [--man]`: a command's help, or all of it as a man page. */
export function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("help", argv, {
    man: { type: "boolean" },
  }, true);
  if (positionals.length > 1) {
    throw new UsageError("courier help: at most one COMMAND (see 'courier --help')");
  }
  if (values.man) {
    if (positionals.length > 0) throw new UsageError("courier help: --man covers every command");
    console.log(manPage(COMMANDS));
    return Promise.resolve(0);
  }
  const name = positionals[0];
  if (name === undefined) {
    console.log(topHelp(COMMANDS));
    return Promise.resolve(0);
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(unknownCommand(name));
  console.log(command.help);
  return Promise.resolve(0);
}
