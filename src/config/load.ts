/**
 * The full config reader: text → YAML document with positions → validated raw config →
 * effective settings, every problem reported as file:line:col. read.ts asks it only when the
 * readers that take only valid configs (block_yaml.ts, fast.ts) did not accept it.
 */
import { LineCounter, parseDocument } from "yaml";
import { effectiveSettings } from "./effective.ts";
import { fastSettings } from "./fast.ts";
import { blockSettings, ConfigError } from "./read.ts";
import { configToken } from "./token.ts";
import type { Settings } from "./types.ts";
import { type Problem, validateDocument } from "./validate.ts";

export { ConfigError, configPathFrom, loadSettings, MISSING_CONFIG_HINT } from "./read.ts";

function formatProblem(file: string, p: Problem): string {
  return `${file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ""}${p.message}`;
}

/**
 * Parses and validates config text; `file` is only used in messages. Pure: the token is the
 * config's own (`requireToken` false: the environment gives it, see token.ts).
 */
export function parseSettings(
  text: string,
  file: string,
  cwd: string,
  requireToken = true,
): Settings {
  const block = blockSettings(text, file, cwd);
  const quick = block === undefined ? fastSettings(text, file, cwd) : block;
  if (quick && (!requireToken || configToken(quick) !== null)) return quick;
  return documentSettings(text, file, cwd, requireToken);
}

/** parseSettings through the YAML document alone: what decides, and places every problem. */
export function documentSettings(
  text: string,
  file: string,
  cwd: string,
  requireToken = true,
): Settings {
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
  const { config, problems } = validateDocument(doc, lines, requireToken);
  if (!config) throw new ConfigError(problems.map((p) => formatProblem(file, p)));
  return effectiveSettings(config, file, cwd);
}
