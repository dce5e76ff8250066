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
