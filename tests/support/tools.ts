/**
 * Optional tools some tests run (promtool, systemd-analyze, zsh, fish, man, script, sqlite3):
 * .ci/peers.sh installs them for CI; elsewhere a test whose tool is missing says so and skips.
 */

import { runWithin } from "./child.ts";

/** Whether `command` runs here (`args` being a harmless call such as --version). */
export async function installed(command: string, args = ["--version"]): Promise<boolean> {
  try {
    const out = await runWithin(command, { args, stdout: "null", stderr: "null" });
    return out.success;
  } catch {
    return false;
  }
}

/** `installed`, with a line saying what is skipped when it is not. */
export async function requireTool(
  command: string,
  what: string,
  args?: string[],
): Promise<boolean> {
  if (await installed(command, args)) return true;
  console.warn(`${command} is not installed (bash .ci/peers.sh installs it): ${what} skipped`);
  return false;
}
