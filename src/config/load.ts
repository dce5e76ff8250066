/** Reading a config file: text → YAML document → validated raw config → effective settings. */
import { LineCounter, parseDocument } from "yaml";
import { effectiveSettings } from "./effective.ts";
import type { Settings } from "./types.ts";
import { type Problem, validateDocument } from "./validate.ts";
import { fileReadProblem } from "../log/file_error.ts";

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

function formatProblem(file: string, p: Problem): string {
  return `${file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ""}${p.message}`;
}

/** Parses and validates config text; `file` is only used in messages. Pure. */
export function parseSettings(text: string, file: string, cwd: string): Settings {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((error) => {
      const { line, col } = lines.linePos(error.pos[0]);
      const first = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
      return `${file}:${line}:${col}: invalid YAML: ${first}`;
    }));
  }
  if (doc.contents === null) {
    throw new ConfigError([
      `${file}: the config is empty (expected messenger_auth_token and feeds)`,
    ]);
  }
  const { config, problems } = validateDocument(doc, lines);
  if (!config) throw new ConfigError(problems.map((p) => formatProblem(file, p)));
  return effectiveSettings(config, file, cwd);
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
  return parseSettings(text.replace(/^\uFEFF/, ""), path, cwd);
}
