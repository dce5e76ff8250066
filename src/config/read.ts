/**
 * Reading a config file, the way every command does: block_yaml.ts for a valid config in the
 * YAML that configs are written in, fast.ts (js-yaml) for a valid one in any other, and the full
 * reader (load.ts) to find and place the problems of the rest. The two readers with a YAML
 * library are loaded only when they are needed, so a run whose config is plain loads neither.
 */
import { loadRegexEngine } from "../filter/regex.ts";
import { fileReadProblem } from "../log/file_error.ts";
import { readBlockYaml } from "./block_yaml.ts";
import { checkedSettings } from "./checked.ts";
import { configToken, environmentToken, TokenError, withToken } from "./token.ts";
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
  const fromEnvironment = environmentToken((name) => Deno.env.get(name), isFile);
  // A filter's expressions are checked by compiling them; only a config with one pays for
  // loading the engine (a key is always written out: YAML has no other way to name it).
  if (text.includes("filter")) await loadRegexEngine();
  let settings = blockSettings(text, path, cwd);
  if (settings === undefined) settings = (await import("./fast.ts")).fastSettings(text, path, cwd);
  // The quick readers take a config without a token; the full reader says where it is missing.
  if (settings && fromEnvironment === null && configToken(settings) === null) settings = null;
  settings ??= (await import("./load.ts")).documentSettings(
    text,
    path,
    cwd,
    fromEnvironment === null,
  );
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

/**
 * The settings of a valid config read by block_yaml.ts; null for one with a problem (which the
 * full reader reports), undefined when that reader left the text to a YAML library.
 */
export function blockSettings(
  text: string,
  file: string,
  cwd: string,
): Settings | null | undefined {
  const doc = readBlockYaml(text);
  return doc === undefined ? undefined : checkedSettings(doc, file, cwd);
}
