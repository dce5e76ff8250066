import { decodeEntities } from "./entities.ts";

/** Collapses runs of whitespace (including no-break spaces) to one space and trims. */
export function collapse(text: string): string {
  return needsCollapse(text) ? text.replace(/\s+/g, " ").trim() : text;
}

/**
 * Whether collapse would change anything: a whitespace character other than a single inner
 * space. A loop, because a regex for this was the most expensive line of the parse.
 */
function needsCollapse(text: string): boolean {
  const n = text.length;
  if (n === 0) return false;
  if (text.charCodeAt(0) === 32 || text.charCodeAt(n - 1) === 32) return true;
  let space = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (space) return true;
      space = true;
      continue;
    }
    space = false;
    if (c < 32 || c === 0xa0) return true;
    if (
      c >= 0x1680 && (c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
        c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff)
    ) return true;
  }
  return false;
}

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
