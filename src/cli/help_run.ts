import type { RunContext } from "./command.ts";
import { parseCommandArgs } from "./args.ts";
import { UsageError } from "./errors.ts";
import { topHelp, unknownCommand } from "./help.ts";
import { manPage } from "./man.ts";

/** `courier help [COMMAND] [--man]`: a command's help, or all of it as a man page. */
export function run(argv: string[], { commands }: RunContext): Promise<number> {
  const { values, positionals } = parseCommandArgs("help", argv, {
    man: { type: "boolean" },
  }, true);
  if (positionals.length > 1) {
    throw new UsageError("courier help: at most one COMMAND (see 'courier --help')");
  }
  if (values.man) {
    if (positionals.length > 0) throw new UsageError("courier help: --man covers every command");
    console.log(manPage(commands));
    return Promise.resolve(0);
  }
  const name = positionals[0];
  if (name === undefined) {
    console.log(topHelp(commands));
    return Promise.resolve(0);
  }
  const command = commands.find((c) => c.name === name);
  if (!command) throw new UsageError(unknownCommand(name, commands));
  console.log(command.help);
  return Promise.resolve(0);
}
