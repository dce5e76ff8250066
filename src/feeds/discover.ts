/**
 * The feeds an HTML page names (`<link rel="alternate" type="application/rss+xml" href>`), as
 * miniflux and feed readers discover them: what to tell a user who gave the page's URL.
 */
import { Parser } from "htmlparser2";
import { HTML_PAGE } from "./errors.ts";
import { resolveUrl } from "./values.ts";

const FEED_TYPES = new Set(["application/rss+xml", "application/atom+xml"]);

/** At most this many are named: a page may list a feed per category. */
const SHOWN = 3;

/** The feed URLs `html` names, absolute against `base`, in page order, each once. */
export function feedLinks(html: string, base: string): string[] {
  const found: string[] = [];
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name !== "link" || !attrs.href) return;
      const rel = (attrs.rel ?? "").toLowerCase().split(/\s+/);
      const type = (attrs.type ?? "").toLowerCase().split(";")[0].trim();
      if (!rel.includes("alternate") || !FEED_TYPES.has(type)) return;
      const url = resolveUrl(attrs.href, base);
      if (url !== null && /^https?:\/\//i.test(url) && !found.includes(url)) found.push(url);
    },
  }, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  parser.end(html);
  return found;
}

/** The reason given for an HTML page: with the feeds it names, which URL to use instead. */
export function htmlPageReason(html: string, base: string): string {
  const links = feedLinks(html, base);
  if (links.length === 0) return HTML_PAGE;
  const more = links.length > SHOWN ? ` (and ${links.length - SHOWN} more)` : "";
  const which = links.length === 1 ? "its feed" : "feeds";
  return `${HTML_PAGE} that names ${which}: use ${links.slice(0, SHOWN).join(" or ")}${more} ` +
    "as the url";
}
