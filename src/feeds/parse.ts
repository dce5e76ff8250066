import type { Entry } from "./entry.ts";
import { EntityLimitError } from "./entities.ts";
import { FeedError } from "./errors.ts";
import { decodeFeedBytes } from "./decode.ts";
import { readProlog } from "./dtd.ts";
import { parseDate } from "./dates.ts";
import { contentId } from "./identity.ts";
import { collapse, htmlToText, maybeHtmlToText } from "./text.ts";
import { child, deepText, type OnClose, parseXml, type XmlElement } from "./xml.ts";

/** The feed formats and versions courier tells apart. */
export type FeedFormat = "rss2" | "rss1" | "rss09x" | "atom10" | "atom03";

/** One document, parsed: entries in document order (merging and ordering come later). */
export interface ParsedFeed {
  format: FeedFormat;
  title: string | null;
  /** The feed's own web page, if it names one. */
  link: string | null;
  entries: Entry[];
  warnings: string[];
}

// deno-lint-ignore no-control-regex -- removing these characters is the point
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g;

function textOf(element: XmlElement): string {
  return element.children.length === 0 ? element.text : deepText(element);
}

/** Already a plain absolute URL in the form the URL parser would give back. */
const CANONICAL_URL = /^https?:\/\/[a-z0-9.-]+(?::\d+)?\/[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]*$/;

function resolveUrl(raw: string, base: string): string | null {
  const value = raw.trim();
  if (value === "") return null;
  // Skips the URL parser for the common case; it was a few percent of parse time.
  if (CANONICAL_URL.test(value) && value.indexOf("/.") < 0 && value.indexOf("%") < 0) {
    return value;
  }
  try {
    return new URL(value, base).href;
  } catch {
    return null;
  }
}

function nonEmpty(text: string): string | null {
  return text === "" ? null : text;
}

/** Plain text of an Atom text construct, honouring `type` (and Atom 0.3's `mode`). */
function atomText(element: XmlElement): string {
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
function pickAtomLink(links: XmlElement[]): string | null {
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

function finishEntry(
  id: string | null,
  link: string | null,
  title: string,
  published: Date | null,
  updated: Date | null,
  summary: string,
): Entry {
  return {
    id: id ?? link ?? contentId(title, summary),
    link,
    title,
    published: published ?? updated,
    updated,
    summary,
  };
}

function rssEntry(item: XmlElement, ns: string): Entry {
  let title: XmlElement | undefined;
  let link: string | null = null;
  let guid: XmlElement | undefined;
  let description: XmlElement | undefined;
  let content: XmlElement | undefined;
  let extraSummary: XmlElement | undefined;
  let pubDate: string | undefined;
  let dcDate: string | undefined;
  let updatedText: string | undefined;
  let atomLinks: XmlElement[] | undefined;
  let enclosure: string | null = null;
  for (const c of item.children) {
    const name = ns === "" ? c.name : c.name.startsWith(ns) ? c.name.slice(ns.length) : c.name;
    switch (name) {
      case "title":
      case "dc:title":
        title ??= c;
        break;
      case "link":
        link ??= resolveUrl(textOf(c) || (c.attrs.href ?? ""), c.base);
        break;
      case "guid":
        guid ??= c;
        break;
      case "description":
        description ??= c;
        break;
      case "content:encoded":
        content ??= c;
        break;
      case "itunes:summary":
      case "media:description":
        extraSummary ??= c;
        break;
      case "media:group": {
        const d = child(c, "media:description");
        if (d) extraSummary ??= d;
        break;
      }
      case "pubdate":
        pubDate ??= textOf(c);
        break;
      case "dc:date":
      case "dcterms:issued":
      case "dcterms:created":
      case "atom:published":
        dcDate ??= textOf(c);
        break;
      case "atom:updated":
      case "dcterms:modified":
        updatedText ??= textOf(c);
        break;
      case "atom:link":
        (atomLinks ??= []).push(c);
        break;
      case "enclosure":
        if (enclosure === null && c.attrs.url) enclosure = resolveUrl(c.attrs.url, c.base);
        break;
    }
  }
  const titleText = title ? maybeHtmlToText(textOf(title)) : "";
  let id: string | null = guid ? nonEmpty(collapse(textOf(guid))) : null;
  id ??= nonEmpty(item.attrs["rdf:about"]?.trim() ?? "");
  if (link === null && atomLinks) link = pickAtomLink(atomLinks);
  if (link === null && guid && id && guid.attrs.ispermalink?.toLowerCase() !== "false") {
    if (/^https?:\/\//i.test(id)) link = resolveUrl(id, guid.base);
  }
  link ??= enclosure;
  const summarySource = description ?? content ?? extraSummary;
  const summary = summarySource ? htmlToText(textOf(summarySource)) : "";
  const published = parseDate(pubDate) ?? parseDate(dcDate);
  return finishEntry(id, link, titleText, published, parseDate(updatedText), summary);
}

function atomEntry(entry: XmlElement, ns: string): Entry {
  let id: string | null = null;
  let title: XmlElement | undefined;
  const links: XmlElement[] = [];
  let published: string | undefined;
  let issued: string | undefined;
  let updated: string | undefined;
  let summary: XmlElement | undefined;
  let content: XmlElement | undefined;
  let media: XmlElement | undefined;
  for (const c of entry.children) {
    const name = ns === "" ? c.name : c.name.startsWith(ns) ? c.name.slice(ns.length) : c.name;
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
    }
  }
  const titleText = title ? atomText(title) : "";
  let link = pickAtomLink(links);
  // An id that is a web address is the entry's page when no link names one (feedparser, miniflux).
  if (link === null && id !== null && /^https?:\/\/\S+$/i.test(id)) {
    link = resolveUrl(id, entry.base);
  }
  const summaryEl = summary ?? content;
  const summaryText = summaryEl ? atomText(summaryEl) : media ? collapse(textOf(media)) : "";
  return finishEntry(
    id,
    link,
    titleText,
    parseDate(published) ?? parseDate(issued),
    parseDate(updated),
    summaryText,
  );
}

function channelTitleAndLink(channel: XmlElement | undefined, ns: string) {
  if (!channel) return { title: null, link: null };
  const title = child(channel, `${ns}title`);
  const link = child(channel, `${ns}link`);
  return {
    title: title ? nonEmpty(maybeHtmlToText(textOf(title))) : null,
    link: link ? resolveUrl(textOf(link), link.base) : null,
  };
}

const FEED_ROOTS = new Set([
  "rss",
  "rdf:rdf",
  "rdf",
  "atom:feed",
  "atom03:feed",
  "feed",
  "atom:entry",
  "atom03:entry",
]);

function describeNonFeed(roots: XmlElement[]): string {
  if (roots.some((r) => /(^|:)html$/.test(r.name))) return "not a feed: it is an HTML page";
  if (roots.length === 0) return "not a feed: the document has no XML elements";
  return `not a feed: the root element is <${roots[0].name}>`;
}

/** Entries converted while parsing, in document order, by the kind of element they came from. */
interface Records {
  items: Entry[];
  entries: Entry[];
  /** Entries the document ended inside of. */
  truncated: number;
}

const ITEM_PARENTS = new Set([
  "rss",
  "channel",
  "rdf:rdf",
  "rdf",
  "rss1:channel",
  "rss090:channel",
]);
const ENTRY_PARENTS = new Set(["atom:feed", "atom03:feed", "feed"]);

function collector(records: Records): OnClose {
  return (element, parent, complete) => {
    const name = element.name;
    if (!complete && (name.endsWith("item") || name.endsWith("entry"))) {
      records.truncated++;
      return true;
    }
    if (name.endsWith("item") && ITEM_PARENTS.has(parent.name)) {
      const ns = name.slice(0, name.length - 4);
      if (ns === "" || ns === "rss1:" || ns === "rss090:") {
        records.items.push(rssEntry(element, ns));
        return true;
      }
    } else if (name.endsWith("entry") && ENTRY_PARENTS.has(parent.name)) {
      const ns = name.slice(0, name.length - 5);
      if (`${ns}feed` === parent.name) {
        records.entries.push(atomEntry(element, ns));
        return true;
      }
    }
    return false;
  };
}

function interpret(
  roots: XmlElement[],
  records: Records,
  url: string,
  warnings: string[],
): ParsedFeed {
  const root = roots.find((r) => FEED_ROOTS.has(r.name));
  if (!root) throw new FeedError(url, describeNonFeed(roots));
  if (root !== roots[0]) warnings.push(`ignored content before the <${root.name}> element`);

  if (root.name === "rss") {
    const channel = child(root, "channel");
    const version = root.attrs.version?.trim() ?? "";
    const format: FeedFormat = version.startsWith("0.9") ? "rss09x" : "rss2";
    return { format, ...channelTitleAndLink(channel, ""), entries: records.items, warnings };
  }

  if (root.name === "rdf:rdf" || root.name === "rdf") {
    const channel = root.children.find((c) => c.name.endsWith("channel"));
    const ns = channel ? channel.name.slice(0, channel.name.length - "channel".length) : "rss1:";
    const format: FeedFormat = ns === "rss090:" ? "rss09x" : "rss1";
    return { format, ...channelTitleAndLink(channel, ns), entries: records.items, warnings };
  }

  if (root.name.endsWith(":entry")) {
    // An Atom Entry Document (RFC 4287 section 2): one entry, read as a feed of one.
    const ns = root.name.slice(0, root.name.length - "entry".length);
    const format: FeedFormat = ns === "atom03:" ? "atom03" : "atom10";
    return { format, title: null, link: null, entries: [atomEntry(root, ns)], warnings };
  }

  const ns = root.name.slice(0, root.name.length - "feed".length);
  const format: FeedFormat = ns === "atom03:" || root.attrs.version?.trim() === "0.3"
    ? "atom03"
    : "atom10";
  if (ns === "") warnings.push("Atom feed without the Atom namespace");
  let title: string | null = null;
  const links: XmlElement[] = [];
  for (const c of root.children) {
    if (c.name === `${ns}title` && title === null) title = nonEmpty(atomText(c));
    else if (c.name === `${ns}link`) links.push(c);
  }
  return { format, title, link: pickAtomLink(links), entries: records.entries, warnings };
}

/**
 * Parses one feed document, RSS 0.9x/1.0/2.0 or Atom 0.3/1.0, as leniently as the best readers.
 * `baseUrl` is the URL the document came from (after redirects): relative links resolve
 * against it and errors name it. Throws FeedError for anything that is not a feed.
 */
export function parseFeed(
  xml: Uint8Array | string,
  baseUrl: string,
  contentType?: string | null,
): ParsedFeed {
  const warnings: string[] = [];
  let text: string;
  if (typeof xml === "string") text = xml;
  else {
    const decoded = decodeFeedBytes(xml, contentType);
    text = decoded.text;
    warnings.push(...decoded.warnings);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") throw new FeedError(baseUrl, "empty document");
  if (/^\s*(<!doctype\s+html|<html[\s>])/i.test(text)) {
    throw new FeedError(baseUrl, "not a feed: it is an HTML page");
  }
  CONTROL.lastIndex = 0;
  if (CONTROL.test(text)) {
    text = text.replace(CONTROL, "");
    warnings.push("removed control characters that XML does not allow");
  }
  try {
    const prolog = readProlog(text);
    warnings.push(...prolog.warnings);
    const records: Records = { items: [], entries: [], truncated: 0 };
    const roots = parseXml(prolog.body, baseUrl, prolog.entities, collector(records));
    if (records.truncated) {
      warnings.push("the document ends inside an entry (truncated?); that entry was dropped");
    }
    return interpret(roots, records, baseUrl, warnings);
  } catch (error) {
    if (error instanceof EntityLimitError) {
      throw new FeedError(baseUrl, `refused: ${error.message}`);
    }
    throw error;
  }
}
