/**
 * Reading a config file, the way every command does: the fast reader (fast.ts) for a valid
 * config, the full one (load.ts, loaded only then) to find and place the problems of any other.
 * This module does not load the yaml package, so a run whose config is valid never does.
 */
import { fileReadProblem } from "../log/file_error.ts";
import { fastSettings } from "./fast.ts";
import type { Settings } from "./types.ts";

/** The config cannot be used. `message` holds one line per problem, each naming file and place. */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly exitCode = 2;
  /** `missing`: the file does not exist, so a caller may offer its own way out. */
  constructor(readonly problems: string[], readonly missing = false) {
    super(problems.join("\n"));
  }
}

/** What a new user without a config can do next; one line. */
export const MISSING_CONFIG_HINT =
  "name one with -c FILE or $COURIER_CONFIG (examples/config.yml is a commented start)";

/**
 * Why the config at `path` is missing, saying where the path came from: the default
 * `./config.yml` is what a first run meets, so it gets the way forward.
 */
function missingConfig(path: string): string {
  const env = Deno.env.get("COURIER_CONFIG");
  if (env !== undefined && env === path) {
    return `${path} (from $COURIER_CONFIG): cannot read config: no such file`;
  }
  if (env === undefined && path === "config.yml") {
    return `no config.yml in this directory; ${MISSING_CONFIG_HINT}`;
  }
  return `${path}: cannot read config: no such file`;
}

/** The config path from a flag, else `$COURIER_CONFIG`, else `./config.yml`. */
export function configPathFrom(flag: string | undefined): string {
  return flag ?? Deno.env.get("COURIER_CONFIG") ?? "config.yml";
}

/** Reads and validates the config file at `path`. */
export async function loadSettings(path: string, cwd = Deno.cwd()): Promise<Settings> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new ConfigError([missingConfig(path)], true);
    const reason = fileReadProblem(error);
    throw new ConfigError([`${path}: cannot read config: ${reason}`]);
  }
  text = text.replace(/^\uFEFF/, "");
  return fastSettings(text, path, cwd) ??
    (await import("./load.ts")).documentSettings(text, path, cwd);
}
