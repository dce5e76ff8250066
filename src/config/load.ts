/**
 * Loading a config file, the way every command does. Two readers, one library each:
 * read_valid.ts (js-yaml, plain values) takes a valid config; read_located.ts (yaml's document
 * with positions) is asked only when that one declines, and finds and places the problems. The
 * located reader is loaded only then: it reads a large config several times slower
 * (bench/NOTES.md).
 */
import { loadRegexEngine } from "../filter/regex.ts";
import { fileReadProblem } from "../log/file_error.ts";
import { ConfigError } from "./errors.ts";
import { readValid } from "./read_valid.ts";
import { configToken, environmentToken, TokenError, withToken } from "./token.ts";
import type { Settings } from "./types.ts";

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

export interface LoadOptions {
  cwd?: string;
  /**
   * false for a command that never sends (status, browse, preview): the token is neither
   * required nor read, so a credential only the service can read does not stop it.
   */
  token?: boolean;
}

/** Reads and validates the config file at `path`. */
export async function loadSettings(path: string, options: LoadOptions = {}): Promise<Settings> {
  const cwd = options.cwd ?? Deno.cwd();
  const needsToken = options.token ?? true;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new ConfigError([missingConfig(path)], true);
    const reason = fileReadProblem(error);
    throw new ConfigError([`${path}: cannot read config: ${reason}`]);
  }
  text = text.replace(/^\uFEFF/, "");
  const fromEnvironment = needsToken
    ? environmentToken((name) => Deno.env.get(name), isFile)
    : null;
  // A filter's expressions are checked by compiling them; only a config with one pays for
  // loading the engine (a key is always written out: YAML has no other way to name it).
  if (text.includes("filter")) await loadRegexEngine();
  let settings = readValid(text, path, cwd);
  // The valid-config reader takes a config without a token; the located one says where it is
  // missing.
  const located = needsToken && fromEnvironment === null;
  if (settings && located && configToken(settings) === null) settings = null;
  settings ??= (await import("./read_located.ts")).readLocated(text, path, cwd, located);
  if (!needsToken) return settings;
  try {
    return withToken(settings, fromEnvironment ?? configToken(settings)!);
  } catch (error) {
    if (error instanceof TokenError) throw new ConfigError([error.message]);
    throw error;
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
