/** Config text → settings without the file system or the environment: what tests and tools use. */
import { readLocated } from "./read_located.ts";
import { readValid } from "./read_valid.ts";
import { configToken } from "./token.ts";
import type { Settings } from "./types.ts";

/**
 * Parses and validates config text; `file` is only used in messages. The token is the config's
 * own (`requireToken` false: the environment gives it, see token.ts).
 */
export function parseSettings(
  text: string,
  file: string,
  cwd: string,
  requireToken = true,
): Settings {
  const quick = readValid(text, file, cwd);
  if (quick && (!requireToken || configToken(quick) !== null)) return quick;
  return readLocated(text, file, cwd, requireToken);
}
