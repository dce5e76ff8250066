/**
 * One item of a filter's `include` or `exclude`: a word or phrase, matched case-insensitively
 * as whole words, or a regular expression written `/…/flags`, matched by RE2 (regex.ts).
 */
import { compileRegex } from "./regex.ts";

/** A compiled item: its text as the config wrote it, and whether it matches a text. */
export interface Pattern {
  source: string;
  test(text: string): boolean;
}

/** `/source/flags`: a slash, the expression, a slash, then letters only. */
const EXPRESSION = /^\/(.+)\/([A-Za-z]*)$/s;

/** Compiles an item, or says why it cannot be used. Needs the regex engine loaded for `/…/`. */
export function compilePattern(item: string): Pattern | string {
  const expression = EXPRESSION.exec(item);
  if (expression !== null) {
    const test = compileRegex(expression[1], expression[2]);
    if (typeof test === "string") return `invalid expression ${item}: ${test}`;
    return { source: item, test };
  }
  const phrase = item.trim().replace(/\s+/g, " ").toLowerCase();
  if (phrase === "") return "must not be empty";
  return { source: item, test: (text) => hasWholePhrase(text.toLowerCase(), phrase) };
}

/**
 * A word's character. Made at the first whole-word match, not when the module loads: its
 * Unicode classes cost start-up time (bench/NOTES.md), and most configs have no filter.
 */
let word: RegExp | undefined;
const isWord = (char: string) => (word ??= /[\p{L}\p{N}\p{M}_]/u).test(char);

/** Whether the character (code point) ending before `end`, or starting at `start`, is a word's. */
function wordBefore(text: string, end: number): boolean {
  if (end <= 0) return false;
  const low = text.charCodeAt(end - 1);
  const from = low >= 0xdc00 && low <= 0xdfff && end >= 2 ? end - 2 : end - 1;
  return isWord(text.slice(from, end));
}

function wordAt(text: string, start: number): boolean {
  if (start >= text.length) return false;
  return isWord(String.fromCodePoint(text.codePointAt(start)!));
}

/**
 * Whether `phrase` occurs in `text` (both lower case) as whole words: no letter, digit or
 * underscore right before it when it starts with one, none right after when it ends with one.
 * Linear in practice: indexOf, then one look at each side of each occurrence.
 */
export function hasWholePhrase(text: string, phrase: string): boolean {
  const checkStart = wordAt(phrase, 0);
  const checkEnd = wordBefore(phrase, phrase.length);
  for (let at = text.indexOf(phrase); at !== -1; at = text.indexOf(phrase, at + 1)) {
    if (checkStart && wordBefore(text, at)) continue;
    if (checkEnd && wordAt(text, at + phrase.length)) continue;
    return true;
  }
  return false;
}
