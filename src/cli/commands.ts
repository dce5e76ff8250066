import type { Command } from "./command.ts";
import { validateCommand } from "./validate.ts";
import { schemaCommand } from "./schema.ts";
import { browseCommand } from "./browse.ts";
import { previewCommand } from "./preview.ts";
import { onceCommand } from "./once.ts";
import { statusCommand } from "./status.ts";
import { forwardCommand } from "./forward.ts";
import { completionsCommand } from "./completions.ts";
import { healthcheckCommand } from "./healthcheck.ts";

/** Every subcommand, in the order `courier --help` lists them. Add one line per command. */
export const COMMANDS: readonly Command[] = [
  forwardCommand,
  statusCommand,
  onceCommand,
  browseCommand,
  validateCommand,
  schemaCommand,
  previewCommand,
  healthcheckCommand,
  completionsCommand,
];
