import { VERSION } from "../version.ts";
import { topHelp, unknownCommand } from "./help.ts";
import { COMMANDS } from "./commands.ts";
import type { RunContext } from "./command.ts";
import type { LogFormat } from "../log/logger.ts";
import { exitCodeOf, UsageError, UserError } from "./errors.ts";

/**
 * Takes `--log-format` out of argv wherever it stands, so every subcommand honours it without
 * declaring it; the format goes to the command with its arguments.
 */
function extractLogFormat(argv: string[]): { rest: string[]; format: LogFormat | undefined } {
  const rest: string[] = [];
  let format: LogFormat | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    let value: string | undefined;
    if (arg === "--log-format") value = argv[++i];
    else if (arg.startsWith("--log-format=")) value = arg.slice("--log-format=".length);
    else {
      rest.push(arg);
      continue;
    }
    if (value !== "text" && value !== "json") {
      throw new UserError(`courier: --log-format must be "text" or "json", got "${value ?? ""}"`);
    }
    format = value;
  }
  return { rest, format };
}

/** Runs the CLI and resolves to the exit code; user errors become one line on stderr. */
export async function main(argv: string[]): Promise<number> {
  let commandName = "";
  try {
    const { rest: args, format: logFormat } = extractLogFormat(argv);
    const context: RunContext = { commands: COMMANDS, logFormat };
    const [name, ...rest] = args;
    commandName = name ?? "";
    if (name === undefined) {
      throw new UsageError(
        `courier: no command given: one of ${COMMANDS.map((c) => c.name).join(", ")} ` +
          `(see 'courier --help')`,
      );
    }
    if (name === "--help" || name === "-h") {
      console.log(topHelp(COMMANDS));
      return 0;
    }
    if (name === "help") return await (await import("./help_run.ts")).run(rest, context);
    if (name === "--version" || name === "-V") {
      console.log(`courier ${VERSION}`);
      return 0;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new UsageError(unknownCommand(name, COMMANDS));
    if (rest.includes("--help") || rest.includes("-h")) {
      console.log(command.help);
      return 0;
    }
    return await command.run(rest, context);
  } catch (error) {
    if (error instanceof UserError) {
      console.error(error.message);
      return error.exitCode;
    }
    const exitCode = exitCodeOf(error);
    if (exitCode !== null) {
      // The error's message says what and where; the command is added to a one-line message
      // that does not name it. Several lines are a list of located problems (a config's, each
      // `file:line:col: ...`), printed as they are.
      const message = (error as Error).message;
      const bare = message.startsWith("courier") || message.includes("\n");
      console.error(bare ? message : `courier ${commandName}: ${message}`);
      return exitCode;
    }
    // A bug, not a user mistake: still one line unless asked for the stack.
    const detail = Deno.env.get("COURIER_DEBUG") ? (error as Error)?.stack : String(error);
    console.error(`courier: internal error: ${detail}`);
    return 1;
  }
}
