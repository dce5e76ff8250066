/**
 * The engine of a filter's `/expression/flags`: RE2 (npm re2js), whose matching takes time
 * linear in the text whatever the pattern, so no pattern and no entry can hang a feed run the
 * way a backtracking engine (JavaScript's own RegExp) can. It is loaded only for a config that
 * has a filter: the module is a few milliseconds of start-up that other runs need not pay.
 */
import type { RE2JS } from "re2js";

let engine: typeof RE2JS | null = null;

/** Loads the engine; read.ts calls it before reading a config that mentions `filter`. */
export async function loadRegexEngine(): Promise<void> {
  engine ??= (await import("re2js")).RE2JS;
}

/** A compiled expression: whether it matches somewhere in a text. */
export type RegexTest = (text: string) => boolean;

/** The flags a filter expression may carry, as RE2 takes them. */
const FLAGS: Record<string, (engine: typeof RE2JS) => number> = {
  i: (e) => e.CASE_INSENSITIVE,
  m: (e) => e.MULTILINE,
  s: (e) => e.DOTALL,
  // RE2 always reads Unicode; `u` is accepted because JavaScript habits write it.
  u: () => 0,
};

/**
 * Compiles `source` with `flags` (letters of i, m, s, u), or says why it cannot be: a flag
 * that is not one of those, or a pattern RE2 cannot express (back-references, lookaround),
 * which no linear-time engine can run.
 */
export function compileRegex(source: string, flags: string): RegexTest | string {
  if (engine === null) throw new Error("the regular expression engine is not loaded");
  const re2 = engine;
  let bits = 0;
  for (const flag of flags) {
    const bit = FLAGS[flag];
    if (bit === undefined) return `unknown flag "${flag}" (allowed: i, m, s, u)`;
    bits |= bit(re2);
  }
  const unsupported = unsupportedFeature(source);
  if (unsupported !== null) {
    return `${unsupported} cannot be matched in linear time, so the engine (RE2) does not ` +
      "support it";
  }
  try {
    const compiled = re2.compile(source, bits);
    return (text) => compiled.matcher(text).find();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.replace(/^error parsing regexp: /, "");
  }
}

/**
 * The name of a backtracking-only feature `source` uses, for a message that says why; RE2's
 * own words for them ("invalid named capture" for a lookbehind) do not.
 */
function unsupportedFeature(source: string): string | null {
  // Skips escaped characters, so `\(?=` is a literal and `\\1` a backslash then "1".
  const plain = source.replace(/\\[^1-9k]/g, "__");
  if (/\(\?<?[=!]/.test(plain)) return "lookaround ((?=, (?!, (?<=, (?<!)";
  if (/\\[1-9]|\\k</.test(plain)) return "a back-reference (\\1, \\k<name>)";
  return null;
}
