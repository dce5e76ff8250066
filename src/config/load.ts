/**
 * The config's one entry point: file → text → js-yaml's plain values → validated raw config →
 * effective settings, every problem reported as file:line:col.
 */
import { loadRegexEngine } from "../filter/regex.ts";
import { fileReadProblem } from "../log/file_error.ts";
import { effectiveSettings } from "./effective.ts";
import { ConfigError } from "./errors.ts";
import { configToken, environmentToken, TokenError, withToken } from "./token.ts";
import type { Settings } from "./types.ts";
import { validateConfig } from "./validate.ts";
import { CONFIG_SCHEMA, readYaml, yamlPlaces, YamlSyntaxError } from "./yaml.ts";

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
  /**
   * false for a command that never sends (status, browse, preview): the token is neither
   * required nor read, so a credential only the service can read does not stop it.
   */
  token?: boolean;
}

/** Reads and validates the config file at `path`. */
export async function loadSettings(path: string, options: LoadOptions = {}): Promise<Settings> {
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
  const settings = parseSettings(text, path, Deno.cwd(), needsToken && fromEnvironment === null);
  if (!needsToken) return settings;
  try {
    return withToken(settings, fromEnvironment ?? configToken(settings)!);
  } catch (error) {
    if (error instanceof TokenError) throw new ConfigError([error.message]);
    throw error;
  }
}

/**
 * The settings of config text, or a ConfigError placing every problem; `file` is only used in
 * messages. `requireToken` false: the environment gives the token (see token.ts).
 */
export function parseSettings(
  text: string,
  file: string,
  cwd: string,
  requireToken = true,
): Settings {
  let doc: unknown;
  try {
    doc = readYaml(text, CONFIG_SCHEMA);
  } catch (error) {
    if (!(error instanceof YamlSyntaxError)) throw error;
    throw new ConfigError([`${file}:${error.line}:${error.col}: invalid YAML: ${error.message}`]);
  }
  if (doc === null || doc === undefined) {
    throw new ConfigError([
      `${file}: the config is empty (expected messenger_auth_token and feeds)`,
    ]);
  }
  const { config, problems } = validateConfig(doc, requireToken);
  if (config) return effectiveSettings(config, file, cwd);
  const places = yamlPlaces(text, CONFIG_SCHEMA);
  throw new ConfigError(
    problems
      .map((p) => ({ ...places.of(p.at, p.onKey), p }))
      .sort((a, b) => a.line - b.line || a.col - b.col)
      .map(({ line, col, p }) =>
        `${file}:${line}:${col}: ${p.path ? `${p.path}: ` : ""}${p.message}`
      ),
  );
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
