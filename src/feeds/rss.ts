import type { Entry } from "../model/entry.ts";
import { parseDate } from "./dates.ts";
import { pickAtomLink } from "./atom.ts";
import { collapse, htmlToText, maybeHtmlToText } from "./text.ts";
import { addCategory, finishEntry, nonEmpty, resolveUrl, textOf, wantsSummary } from "./values.ts";
import { child, withoutPrefix, type XmlElement } from "./xml.ts";

/**
 * One RSS item (0.9x, 1.0 or 2.0); `ns` is the prefix its children carry ("" for RSS 2.0).
 * Without `withSummary` the summary is left empty (see wantsSummary).
 */
export function rssEntry(item: XmlElement, ns: string, withSummary = true): Entry {
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
  let categories: string[] | undefined;
  for (const c of item.children) {
    const name = withoutPrefix(c.name, ns);
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
      case "category":
      case "dc:subject":
        categories = addCategory(categories, textOf(c));
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
  const published = parseDate(pubDate) ?? parseDate(dcDate);
  const source = description ?? content ?? extraSummary;
  const summary = source && wantsSummary(id, link, withSummary) ? htmlToText(textOf(source)) : "";
  return finishEntry(
    id,
    link,
    titleText,
    published,
    parseDate(updatedText),
    summary,
    categories,
  );
}

/** The title and web page of an RSS channel. */
export function channelTitleAndLink(channel: XmlElement | undefined, ns: string) {
  if (!channel) return { title: null, link: null };
  const title = child(channel, `${ns}title`);
  const link = child(channel, `${ns}link`);
  return {
    title: title ? nonEmpty(maybeHtmlToText(textOf(title))) : null,
    link: link ? resolveUrl(textOf(link), link.base) : null,
  };
}
