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
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
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
    const reason = fileReadProblem(error);
    throw new ConfigError([`${path}: cannot read config: ${reason}`]);
  }
  return parseSettings(text.replace(/^\uFEFF/, ""), path, cwd);
}
