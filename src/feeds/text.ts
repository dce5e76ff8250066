import { decodeEntities } from "./entities.ts";

/** Collapses runs of whitespace (including no-break spaces) to one space and trims. */
export function collapse(text: string): string {
  return NEEDS_COLLAPSE.test(text) ? text.replace(/\s+/g, " ").trim() : text;
}

// Anything collapse would change: a whitespace character other than a single inner space.
const NEEDS_COLLAPSE =
  /[\t\n\v\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]| {2}|^ | $/;

const HTML_HINT =
  /<\/[A-Za-z][\w:-]*\s*>|<[A-Za-z][\w:-]*[^<>]*\/>|<br\s*>|&(#\d+|#x[\da-f]+|\w+);/i;

/** Whether text that is supposed to be plain looks like escaped HTML (feedparser's heuristic). */
export function looksLikeHtml(text: string): boolean {
  return (text.indexOf("<") >= 0 || text.indexOf("&") >= 0) && HTML_HINT.test(text);
}

const DROP = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
const BLOCK_TAG =
  /<\/?(?:p|div|br|li|ul|ol|tr|td|th|h[1-6]|blockquote|pre|hr|table|section|article)\b[^>]*>/gi;
const TAG = /<\/?[A-Za-z][^<>]*>|<!\[CDATA\[|\]\]>/g;

/** Plain text of an HTML fragment: tags stripped, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  if (html.indexOf("<") < 0) return collapse(decodeEntities(html));
  const text = html.replace(DROP, "").replace(BLOCK_TAG, " ").replace(TAG, "");
  return collapse(decodeEntities(text));
}

/** Plain text of a value that may or may not be HTML. */
export function maybeHtmlToText(text: string): string {
  return looksLikeHtml(text) ? htmlToText(text) : collapse(text);
}
