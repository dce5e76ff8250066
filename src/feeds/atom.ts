import type { Entry } from "../model/entry.ts";
import { parseDate } from "./dates.ts";
import { collapse, htmlToText } from "./text.ts";
import { addCategory, finishEntry, nonEmpty, resolveUrl, textOf, wantsSummary } from "./values.ts";
import { child, deepText, withoutPrefix, type XmlElement } from "./xml.ts";

/** Plain text of an Atom text construct, honouring `type` (and Atom 0.3's `mode`). */
export function atomText(element: XmlElement): string {
  const type = (element.attrs.type ?? "text").toLowerCase();
  let raw: string | null = null;
  if (element.attrs.mode === "base64") {
    try {
      raw = new TextDecoder().decode(
        Uint8Array.from(atob(textOf(element).replace(/\s+/g, "")), (c) => c.charCodeAt(0)),
      );
    } catch {
      raw = "";
    }
  }
  if (type === "xhtml" || type === "application/xhtml+xml") return collapse(deepText(element));
  if (type === "html" || type === "text/html" || element.attrs.mode === "escaped") {
    return htmlToText(raw ?? textOf(element));
  }
  return collapse(raw ?? textOf(element));
}

/**
 * The URL of an Atom `link` worth sending: an HTML alternate first, then any alternate, then an
 * enclosure. Other rels (license, self, edit, replies, related, via...) name something other
 * than the entry's page and are never its link (feedparser takes alternates only).
 */
export function pickAtomLink(links: XmlElement[]): string | null {
  let best: XmlElement | undefined;
  let bestScore = 0;
  for (const link of links) {
    const rel = (link.attrs.rel ?? "alternate").trim().toLowerCase();
    const type = (link.attrs.type ?? "").toLowerCase();
    let score = 0;
    if (rel === "alternate" || rel === "http://www.iana.org/assignments/relation/alternate") {
      score = type === "" || type.includes("html") ? 4 : 3;
    } else if (rel === "enclosure") {
      score = 1; // a podcast entry's media is still something to open, as RSS's enclosure is
    }
    if (score > bestScore && link.attrs.href) {
      best = link;
      bestScore = score;
    }
  }
  return best ? resolveUrl(best.attrs.href, best.base) : null;
}

/**
 * One Atom entry; `ns` is the prefix its children carry ("" for Atom without a namespace).
 * Without `withSummary` the summary is left empty (see wantsSummary).
 */
export function atomEntry(entry: XmlElement, ns: string, withSummary = true): Entry {
  let id: string | null = null;
  let title: XmlElement | undefined;
  const links: XmlElement[] = [];
  let published: string | undefined;
  let issued: string | undefined;
  let updated: string | undefined;
  let summary: XmlElement | undefined;
  let content: XmlElement | undefined;
  let media: XmlElement | undefined;
  let categories: string[] | undefined;
  for (const c of entry.children) {
    const name = withoutPrefix(c.name, ns);
    switch (name) {
      case "id":
        id ??= nonEmpty(collapse(textOf(c)));
        break;
      case "title":
        title ??= c;
        break;
      case "link":
        links.push(c);
        break;
      case "published":
        published ??= textOf(c);
        break;
      case "issued":
      case "created":
      case "dc:date":
        issued ??= textOf(c);
        break;
      case "updated":
      case "modified":
        updated ??= textOf(c);
        break;
      case "summary":
        summary ??= c;
        break;
      case "content":
        content ??= c;
        break;
      case "media:group": {
        const d = child(c, "media:description");
        if (d) media ??= d;
        break;
      }
      case "media:description":
        media ??= c;
        break;
      case "category":
        // Atom 1.0 names it in `term`; `label` is only its display form. Atom 0.3 feeds and
        // RSS habits leave the name as the element's text.
        categories = addCategory(categories, c.attrs.term ?? textOf(c));
        break;
    }
  }
  const titleText = title ? atomText(title) : "";
  let link = pickAtomLink(links);
  // An id that is a web address is the entry's page when no link names one (feedparser, miniflux).
  if (link === null && id !== null && /^https?:\/\/\S+$/i.test(id)) {
    link = resolveUrl(id, entry.base);
  }
  const publishedDate = parseDate(published);
  // Many entries write one instant as both: read once, it is a large share of an Atom parse.
  return finishEntry(
    id,
    link,
    titleText,
    publishedDate ?? parseDate(issued),
    updated === published ? publishedDate : parseDate(updated),
    wantsSummary(id, link, withSummary) ? entrySummary(summary ?? content, media) : "",
    categories,
  );
}

function entrySummary(text: XmlElement | undefined, media: XmlElement | undefined): string {
  if (text) return atomText(text);
  return media ? collapse(textOf(media)) : "";
}

/** The title and web page of an Atom feed, read from the children of its root. */
export function atomHead(
  root: XmlElement,
  ns: string,
): { title: string | null; link: string | null } {
  let title: string | null = null;
  const links: XmlElement[] = [];
  for (const c of root.children) {
    if (c.name === `${ns}title` && title === null) title = nonEmpty(atomText(c));
    else if (c.name === `${ns}link`) links.push(c);
  }
  return { title, link: pickAtomLink(links) };
}
