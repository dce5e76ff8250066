import { Parser } from "htmlparser2";
import { decodeHtml, isHtmlEntity } from "./entities.ts";

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

/**
 * Elements a title may carry as markup: phrasing content. A block element (`<details>`,
 * `<table>`) in a title is a mention of the element, not formatting.
 */
const PHRASING = new Set([
  "a",
  "abbr",
  "acronym",
  "b",
  "bdi",
  "bdo",
  "big",
  "br",
  "cite",
  "code",
  "del",
  "dfn",
  "em",
  "font",
  "i",
  "img",
  "ins",
  "kbd",
  "mark",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "time",
  "tt",
  "u",
  "var",
  "wbr",
]);
const VOID = new Set(["br", "img", "wbr"]);
const TAG_TOKEN = /<(\/?)(\w+)[^<>]*?(\/?)>|<\/?\w/g;
const NAMED_ENTITY = /&(\w+);/g;

/**
 * Whether text that is supposed to be plain is in fact escaped HTML, decided as feedparser's
 * `looks_like_html` does and stricter still, because a false positive silently eats words
 * ("Use <br> for breaks", "</example>"): it needs a closing tag or an entity; every tag must be
 * a known phrasing element, complete and properly nested; every named entity must be HTML's.
 */
export function looksLikeHtml(text: string): boolean {
  if (text.indexOf("<") < 0 && text.indexOf("&") < 0) return false;
  if (!/<\/\w+>/.test(text) && !/&#?\w+;/.test(text)) return false;
  const open: string[] = [];
  for (const m of text.matchAll(TAG_TOKEN)) {
    if (m[2] === undefined) return false; // a tag that never closes its `>`
    const name = m[2].toLowerCase();
    if (!PHRASING.has(name)) return false;
    if (m[1] === "/") {
      if (open.pop() !== name) return false;
    } else if (m[3] !== "/" && !VOID.has(name)) {
      open.push(name);
    }
  }
  if (open.length > 0) return false;
  for (const m of text.matchAll(NAMED_ENTITY)) {
    if (!isHtmlEntity(m[1])) return false;
  }
  return true;
}

/** Elements whose boundaries separate words when markup becomes text (HTML and XHTML). */
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  "p",
  "div",
  "br",
  "li",
  "ul",
  "ol",
  "tr",
  "td",
  "th",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "blockquote",
  "pre",
  "hr",
  "table",
  "section",
  "article",
  "details",
  "summary",
  "figure",
  "figcaption",
  "dd",
  "dt",
]);

/**
 * Plain text of an HTML fragment, read by an HTML parser: tags, comments and declarations
 * dropped, script and style contents skipped, entities decoded, whitespace collapsed.
 */
export function htmlToText(html: string): string {
  if (html.indexOf("<") < 0) return collapse(html.indexOf("&") < 0 ? html : decodeHtml(html));
  const inline = inlineMarkupText(html);
  if (inline !== null) return inline;
  return parsedHtmlText(html);
}

const HIDDEN = new Set(["script", "style", "template"]);

/** htmlToText's reading of any markup, by htmlparser2. */
export function parsedHtmlText(html: string): string {
  const parts: string[] = [];
  let hidden = 0;
  const parser = new Parser({
    onopentagname(name) {
      if (HIDDEN.has(name)) hidden++;
      else if (BLOCK_ELEMENTS.has(name)) parts.push(" ");
    },
    onclosetag(name) {
      if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
      else if (BLOCK_ELEMENTS.has(name)) parts.push(" ");
    },
    ontext(text) {
      if (hidden === 0) parts.push(text);
    },
  }, { decodeEntities: true, recognizeCDATA: true });
  // Markup the text ends inside of ("<!DOCTYPE" quoted in a CDATA section) is text, as
  // feedparser reads it: the HTML parser would keep only part of it.
  const lastOpen = html.lastIndexOf("<");
  const unfinished = lastOpen >= 0 && html.indexOf(">", lastOpen) < 0;
  parser.end(unfinished ? html.slice(0, lastOpen) : html);
  if (unfinished) parts.push(decodeHtml(html.slice(lastOpen)));
  return collapse(parts.join(""));
}

/** Phrasing elements that are never void: an HTML parser reads their tags as nothing but tags. */
const INLINE = new Set([...PHRASING].filter((name) => !VOID.has(name)));

/**
 * The text of markup whose every tag is a bare inline one (`<b>`, `</em>`, no attributes), with
 * no character references, else null. Such tags add nothing to the text, nested or not, so no
 * HTML parser is needed for a title like "Release <b>2.0</b>" (tests hold this to the parser's
 * reading): a parser per title showed in a large Atom feed's parse.
 */
function inlineMarkupText(html: string): string | null {
  if (html.indexOf("&") >= 0) return null;
  let text = "";
  let last = 0;
  for (let lt = html.indexOf("<"); lt >= 0; lt = html.indexOf("<", last)) {
    const gt = html.indexOf(">", lt);
    if (gt < 0) return null;
    const start = html.charCodeAt(lt + 1) === 47 ? lt + 2 : lt + 1; // after "</" or "<"
    if (!INLINE.has(html.slice(start, gt).toLowerCase())) return null;
    text += html.slice(last, lt);
    last = gt + 1;
  }
  return collapse(text + html.slice(last));
}

/** Plain text of a value that may or may not be HTML. */
export function maybeHtmlToText(text: string): string {
  return looksLikeHtml(text) ? htmlToText(text) : collapse(text);
}
