import { Parser } from "htmlparser2";
import { decodeHtml } from "./entities.ts";
// The parser reads named references, which decodeHtml needs the table for.
import "./html_entities.ts";
import { BLOCK_ELEMENTS, collapse, setHtmlParser } from "./text.ts";

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

// Loading this module is what lets htmlToText read any markup.
setHtmlParser(parsedHtmlText);
