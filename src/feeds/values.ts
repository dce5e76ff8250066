import type { Entry } from "../model/entry.ts";
import { contentId } from "./identity.ts";
import { collapse } from "./text.ts";
import { deepText, type XmlElement } from "./xml.ts";

/** The text of an element, its descendants' text included. */
export function textOf(element: XmlElement): string {
  return element.children.length === 0 ? element.text : deepText(element);
}

/** Already a plain absolute URL in the form the URL parser would give back. */
const CANONICAL_URL = /^https?:\/\/[a-z0-9.-]+(?::\d+)?\/[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]*$/;

/** `raw` as an absolute URL against `base`, or null if it is empty or no URL. */
export function resolveUrl(raw: string, base: string): string | null {
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

export function nonEmpty(text: string): string | null {
  return text === "" ? null : text;
}

/**
 * Whether an entry's summary must be worked out: when the caller wants summaries, or when
 * identity needs one (an entry with neither id nor link is known by a hash of its content).
 * Turning HTML into text is much of a large feed's parse, and preview shows no summaries.
 */
export function wantsSummary(id: string | null, link: string | null, wanted: boolean): boolean {
  return wanted || (id === null && link === null);
}

/**
 * An Entry from the values a format mapped, with identity's fallbacks applied. `summary` is ""
 * when not wanted (see wantsSummary).
 */
export function finishEntry(
  id: string | null,
  link: string | null,
  title: string,
  published: Date | null,
  updated: Date | null,
  summary: string,
  categories?: string[],
): Entry {
  const entry: Entry = {
    id: id ?? link ?? contentId(title, summary),
    link,
    title,
    published: published ?? updated,
    updated,
    summary,
  };
  if (categories !== undefined) entry.categories = categories;
  return entry;
}

/** Adds a category's text to `list` (made on the first one); empty ones are left out. */
export function addCategory(list: string[] | undefined, raw: string): string[] | undefined {
  const text = collapse(raw);
  if (text === "") return list;
  if (list === undefined) return [text];
  list.push(text);
  return list;
}
