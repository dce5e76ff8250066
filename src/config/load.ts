/**
 * The config's one entry point: file → text → yaml's document with positions → validated raw
 * config → effective settings, every problem reported as file:line:col.
 */
import { LineCounter, parseDocument } from "yaml";
import { loadRegexEngine } from "../filter/regex.ts";
import { fileReadProblem } from "../log/file_error.ts";
import { effectiveSettings } from "./effective.ts";
import { ConfigError } from "./errors.ts";
import { configToken, environmentToken, TokenError, withToken } from "./token.ts";
import type { Settings } from "./types.ts";
import { type Problem, validateDocument } from "./validate.ts";

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
  const settings = parseSettings(text, path, cwd, needsToken && fromEnvironment === null);
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
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((error) => {
      const { line, col } = lines.linePos(errorOffset(text, error.message, error.pos[0]));
      const first = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
      return `${file}:${line}:${col}: invalid YAML: ${first}`;
    }));
  }
  if (doc.contents === null) {
    throw new ConfigError([
      `${file}: the config is empty (expected messenger_auth_token and feeds)`,
    ]);
  }
  const { config, problems } = validateDocument(doc, lines, requireToken);
  if (!config) throw new ConfigError(problems.map((p) => formatProblem(file, p)));
  return effectiveSettings(config, file, cwd);
}

const MISSING_QUOTE = /^Missing closing (["'])quote/;

/**
 * Where a YAML error is to be shown. A quote never closed is reported by the parser where it
 * gave up (often the end of the file): the quote that opened it is what to fix. That is the
 * last such quote before there that starts a value (after `:`, `-`, `[`, `{`, `,`, `?` or at a
 * line's start): one inside the value would have closed it.
 */
function errorOffset(text: string, message: string, at: number): number {
  const quote = MISSING_QUOTE.exec(message)?.[1];
  if (quote === undefined) return at;
  for (let i = Math.min(at, text.length) - 1; i >= 0; i--) {
    if (text[i] !== quote) continue;
    let j = i - 1;
    while (j >= 0 && (text[j] === " " || text[j] === "\t")) j--;
    if (j < 0 || "\n:-[{,?".includes(text[j])) return i;
  }
  return at;
}

function formatProblem(file: string, p: Problem): string {
  return `${file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ""}${p.message}`;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
