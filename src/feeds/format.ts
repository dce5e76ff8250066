import type { FeedType } from "../model/feed_type.ts";
import { FeedError, HTML_PAGE } from "./errors.ts";
import type { XmlElement } from "./xml.ts";

/** The feed formats and versions courier tells apart. */
export type FeedFormat = "rss2" | "rss1" | "rss09x" | "atom10" | "atom03";

export const FEED_ROOTS = new Set([
  "rss",
  "rdf:rdf",
  "rdf",
  "atom:feed",
  "atom03:feed",
  "feed",
  "atom:entry",
  "atom03:entry",
]);

export function describeNonFeed(roots: XmlElement[]): string {
  if (roots.some((r) => /(^|:)html$/.test(r.name))) return HTML_PAGE;
  if (roots.length === 0) return "not a feed: the document has no XML elements";
  return `not a feed: the root element is <${roots[0].name}>`;
}

/** What a feed's root says about it: its format, and the prefix its entries' children carry. */
export interface Detected {
  format: FeedFormat;
  /** Which mapping reads it: RSS items, Atom entries, or one Atom entry as the root. */
  kind: "rss" | "atom" | "atom-entry";
  /** The namespace prefix of the channel's or feed's children ("" for RSS 2.0, bare Atom). */
  ns: string;
  /** The RSS channel, when there is one. */
  channel: XmlElement | undefined;
}

/**
 * The first feed root among the document's top-level elements and its format, told apart by
 * root name, namespace and version attribute (never by the declared `type`). Throws FeedError,
 * naming `url`, when no top-level element is a feed.
 */
export function detectFormat(roots: XmlElement[], url: string): { root: XmlElement } & Detected {
  const root = roots.find((r) => FEED_ROOTS.has(r.name));
  if (!root) throw new FeedError(url, describeNonFeed(roots));
  if (root.name === "rss") {
    const version = root.attrs.version?.trim() ?? "";
    const format: FeedFormat = version.startsWith("0.9") ? "rss09x" : "rss2";
    const channel = root.children.find((c) => c.name === "channel");
    return { root, format, kind: "rss", ns: "", channel };
  }
  if (root.name === "rdf:rdf" || root.name === "rdf") {
    const channel = root.children.find((c) => c.name.endsWith("channel"));
    const ns = channel ? channel.name.slice(0, channel.name.length - "channel".length) : "rss1:";
    return { root, format: ns === "rss090:" ? "rss09x" : "rss1", kind: "rss", ns, channel };
  }
  if (root.name.endsWith(":entry")) {
    // An Atom Entry Document (RFC 4287 section 2): one entry, read as a feed of one.
    const ns = root.name.slice(0, root.name.length - "entry".length);
    const format: FeedFormat = ns === "atom03:" ? "atom03" : "atom10";
    return { root, format, kind: "atom-entry", ns, channel: undefined };
  }
  const ns = root.name.slice(0, root.name.length - "feed".length);
  const format: FeedFormat = ns === "atom03:" || root.attrs.version?.trim() === "0.3"
    ? "atom03"
    : "atom10";
  return { root, format, kind: "atom", ns, channel: undefined };
}

const FORMAT_NAMES: Record<FeedFormat, string> = {
  rss2: "RSS 2.0",
  rss1: "RSS 1.0",
  rss09x: "RSS 0.9x",
  atom10: "Atom 1.0",
  atom03: "Atom 0.3",
};

/** The warning for a feed whose detected format is not the configured `type`, or null. */
export function typeMismatch(format: FeedFormat, type: FeedType): string | null {
  const isAtom = format.startsWith("atom");
  if ((type === "atom") === isAtom) return null;
  return `the feed is ${FORMAT_NAMES[format]} but its type is set to ${type}`;
}
