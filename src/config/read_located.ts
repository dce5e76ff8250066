/**
 * The located config reader: text → yaml's document with positions → validated raw config →
 * effective settings, every problem reported as file:line:col. It decides wherever
 * read_valid.ts declines, so it is what says why a config cannot be used.
 */
import { LineCounter, parseDocument } from "yaml";
import { effectiveSettings } from "./effective.ts";
import { ConfigError } from "./errors.ts";
import type { Settings } from "./types.ts";
import { type Problem, validateDocument } from "./validate.ts";

function formatProblem(file: string, p: Problem): string {
  return `${file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ""}${p.message}`;
}

/**
 * The settings of config text, or a ConfigError placing every problem; `file` is only used in
 * messages. `requireToken` false: the environment gives the token (see token.ts).
 */
export function readLocated(
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
