import { ConfigError } from "../../src/config/errors.ts";
import { parseSettings } from "../../src/config/load.ts";

/** The error lines for a config text read as `c.yml`; fails the test if the config is accepted. */
export function problems(text: string): string[] {
  try {
    parseSettings(text, "c.yml", "/tmp");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}
