import { Parser } from "htmlparser2";
import { decodeEntities, isHtmlEntity } from "./entities.ts";

/** Collapses runs of whitespace (including no-break spaces) to one space and trims. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
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

const HIDDEN = new Set(["script", "style", "template"]);

/**
 * Plain text of an HTML fragment, read by an HTML parser: tags, comments and declarations
 * dropped, script and style contents skipped, entities decoded, whitespace collapsed.
 */
export function htmlToText(html: string): string {
  if (html.indexOf("<") < 0) return collapse(html.indexOf("&") < 0 ? html : decodeEntities(html));
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
  if (unfinished) parts.push(decodeEntities(html.slice(lastOpen)));
  return collapse(parts.join(""));
}

/** Plain text of a value that may or may not be HTML. */
export function maybeHtmlToText(text: string): string {
  return looksLikeHtml(text) ? htmlToText(text) : collapse(text);
}
