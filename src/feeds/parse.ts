import type { Entry } from "../model/entry.ts";
import { EntityLimitError } from "./entities.ts";
import { FeedError, HTML_PAGE } from "./errors.ts";
import { decodeFeedBytes } from "./decode.ts";
import { htmlPageReason } from "./discover.ts";
import { readProlog } from "./dtd.ts";
import { atomEntry, atomHead } from "./atom.ts";
import { detectFormat, type FeedFormat } from "./format.ts";
import { channelTitleAndLink, rssEntry } from "./rss.ts";
import { type LinkFallback, separateSharedLinks } from "./identity.ts";
import { resolveUrl } from "./values.ts";
import { child, type OnClose, parseXml, type XmlElement } from "./xml.ts";

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

/** Entries converted while parsing, in document order, by the kind of element they came from. */
interface Records {
  items: Entry[];
  entries: Entry[];
  /** Entries the document ended inside of. */
  truncated: number;
  summaries: boolean;
  /** Items and entries whose id fell back to their link, by index (see separateSharedLinks). */
  itemFallbacks: LinkFallback[];
  entryFallbacks: LinkFallback[];
  /**
   * Items and entries closed inside an element that is not their parent in a feed (an
   * `<image>` at channel level), by that element: they become entries if it turns out to be
   * left open (`<itunes:category>` never closed swallows every item after it), as feedparser
   * reads them; dropped if it closes with its own end tag.
   */
  strays: Map<XmlElement, { kind: number; entry: Entry; fallback: LinkFallback | null }[]>;
  /** Warnings about strays taken, one per element left open. */
  recovered: string[];
}

export interface ParseOptions {
  /**
   * Whether entries need their summaries (default true). Without, each entry's summary is ""
   * unless identity needs it (no id, no link): HTML need not be turned into text for output
   * that never shows it, such as preview's.
   */
  summaries?: boolean;
}

const ITEM_PARENTS = new Set([
  "rss",
  "channel",
  "rdf:rdf",
  "rdf",
  "rss1:channel",
  "rss090:channel",
]);

/** 1 for an RSS item's name, 2 for an Atom entry's, 0 otherwise, wherever it stands. */
function entryKind(name: string): number {
  if (name === "item" || name === "rss1:item" || name === "rss090:item") return 1;
  if (name === "entry" || name === "atom:entry" || name === "atom03:entry") return 2;
  return 0;
}

/** Whether an item or entry stands where its feed puts them: in a channel, or in its feed. */
function inFeed(name: string, kind: number, parent: string): boolean {
  return kind === 1 ? ITEM_PARENTS.has(parent) : parent === `${name.slice(0, -"entry".length)}feed`;
}

/** Whether an item or entry has no id of its own, so that identity fell back to its link. */
function linkFallback(element: XmlElement, entry: Entry, kind: number, ns: string) {
  if (entry.link === null || entry.id !== entry.link) return null;
  if (kind === 1) {
    if (child(element, `${ns}guid`) || element.attrs["rdf:about"]) return null;
    const enclosure = child(element, `${ns}enclosure`);
    const url = enclosure?.attrs.url;
    return { index: -1, enclosure: url ? resolveUrl(url, enclosure!.base) : null };
  }
  return child(element, `${ns}id`) ? null : { index: -1, enclosure: null };
}

/** Files a converted item (1) or entry (2) with its fallback, if any, in document order. */
function keep(records: Records, kind: number, entry: Entry, fallback: LinkFallback | null) {
  const list = kind === 1 ? records.items : records.entries;
  if (fallback) {
    fallback.index = list.length;
    (kind === 1 ? records.itemFallbacks : records.entryFallbacks).push(fallback);
  }
  list.push(entry);
}

function collector(records: Records): OnClose {
  const convert = (element: XmlElement, kind: number) => {
    const name = element.name;
    const ns = name.slice(0, name.length - (kind === 1 ? 4 : 5));
    const entry = kind === 1
      ? rssEntry(element, ns, records.summaries)
      : atomEntry(element, ns, records.summaries);
    return { kind, entry, fallback: linkFallback(element, entry, kind, ns) };
  };
  return (element, parent, complete, unclosed) => {
    if (records.strays.size) {
      const held = records.strays.get(element);
      if (held) {
        records.strays.delete(element);
        if (unclosed) {
          for (const stray of held) keep(records, stray.kind, stray.entry, stray.fallback);
          const what = held.length === 1 ? "entry" : `${held.length} entries`;
          records.recovered.push(
            `<${element.name}> is never closed; read the ${what} inside it as the feed's`,
          );
        }
      }
    }
    const name = element.name;
    const last = name.charCodeAt(name.length - 1);
    if (last !== 109 && last !== 121) return false; // "m", "y"
    if (!complete && (name.endsWith("item") || name.endsWith("entry"))) {
      records.truncated++;
      return true;
    }
    const kind = entryKind(name);
    if (kind === 0) return false;
    if (inFeed(name, kind, parent.name)) {
      const { entry, fallback } = convert(element, kind);
      keep(records, kind, entry, fallback);
      return true;
    }
    const held = records.strays.get(parent);
    if (held) held.push(convert(element, kind));
    else records.strays.set(parent, [convert(element, kind)]);
    return false;
  };
}

function interpret(
  roots: XmlElement[],
  records: Records,
  url: string,
  warnings: string[],
): ParsedFeed {
  const { root, format, kind, ns, channel } = detectFormat(roots, url);
  if (root !== roots[0]) warnings.push(`ignored content before the <${root.name}> element`);
  warnings.push(...records.recovered);
  if (kind === "rss") {
    separateSharedLinks(records.items, records.itemFallbacks);
    return { format, ...channelTitleAndLink(channel, ns), entries: records.items, warnings };
  }
  if (kind === "atom-entry") {
    const entry = atomEntry(root, ns, records.summaries);
    return { format, title: null, link: null, entries: [entry], warnings };
  }
  if (ns === "") warnings.push("Atom feed without the Atom namespace");
  separateSharedLinks(records.entries, records.entryFallbacks);
  return { format, ...atomHead(root, ns), entries: records.entries, warnings };
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
  options: ParseOptions = {},
): ParsedFeed {
  const warnings: string[] = [];
  let text: string;
  if (typeof xml === "string") text = xml;
  else {
    const decoded = decodeFeedBytes(xml, contentType);
    text = decoded.text;
    warnings.push(...decoded.warnings);
    // Not needed past this point; a caller that hands its only reference over frees the bytes
    // for the rest of the parse.
    xml = "";
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") throw new FeedError(baseUrl, "empty document");
  if (/^\s*(<!doctype\s+html|<html[\s>])/i.test(text)) {
    throw new FeedError(baseUrl, htmlPageReason(text, baseUrl));
  }
  CONTROL.lastIndex = 0;
  if (CONTROL.test(text)) {
    text = text.replace(CONTROL, "");
    warnings.push("removed control characters that XML does not allow");
  }
  try {
    const prolog = readProlog(text);
    warnings.push(...prolog.warnings);
    const summaries = options.summaries ?? true;
    const records: Records = {
      items: [],
      entries: [],
      truncated: 0,
      summaries,
      itemFallbacks: [],
      entryFallbacks: [],
      strays: new Map(),
      recovered: [],
    };
    const roots = parseXml(prolog.body, baseUrl, prolog.entities, collector(records));
    if (records.truncated) {
      warnings.push("the document ends inside an entry (truncated?); that entry was dropped");
    }
    return interpret(roots, records, baseUrl, warnings);
  } catch (error) {
    if (error instanceof EntityLimitError) {
      throw new FeedError(baseUrl, `refused: ${error.message}`);
    }
    // An XHTML page, read as XML: the feeds it names are found in its text.
    if (error instanceof FeedError && error.reason === HTML_PAGE) {
      throw new FeedError(baseUrl, htmlPageReason(text, baseUrl));
    }
    throw error;
  }
}
