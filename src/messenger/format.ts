import type { Entry } from "../model/entry.ts";
import {
  DEFAULT_SUMMARY_LENGTH,
  DEFAULT_TEMPLATE,
  ENTRY_FIELDS,
  type FieldName,
  isLiteral,
  parseTemplate,
  type Slot,
  type Template,
} from "./template.ts";

/** Telegram's limit on a message's text. */
export const MAX_MESSAGE_LENGTH = 4096;

/** A message ready for `sendMessage` with `parse_mode: HTML`. */
export interface Message {
  /** Telegram HTML. */
  html: string;
  /** Whether Telegram should show a link preview (Instant View needs it). */
  previews: boolean;
  /** `html` is plain text, sent with no parse mode (the fallback for a refused message). */
  plain?: boolean;
  /** The page to preview when it need not be the first link of the text (Instant View). */
  previewUrl?: string;
  /** Sent without a notification sound (`disable_notification`). */
  silent?: boolean;
  /** The forum topic to post in (`message_thread_id`). */
  topic?: number;
}

export interface FormatOptions {
  /** Text of the link (the feed's `title`, default "Link"). */
  linkText: string;
  /** Instant View template hash; "" for a plain link. */
  rhash: string;
  /** The feed's template; default today's message (DEFAULT_TEMPLATE). */
  template?: Template | null;
  /** The feed's name, for `{feed}`. */
  feed?: string;
}

/** Escapes text for Telegram HTML: element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ESCAPES[c]);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/** The link a message points to: the entry's own, or its Instant View page with `rhash`. */
export function messageLink(link: string, rhash: string): string {
  if (rhash === "") return link;
  return `https://t.me/iv?url=${encodeURIComponent(link)}&rhash=${encodeURIComponent(rhash)}`;
}

/** Parsed when a message first needs it: a run that sends nothing never does. */
let defaultTemplate: Template | undefined;

/**
 * The message for one entry, laid out by the feed's template (default: its title in bold, then
 * on the next line a link whose text is the feed's link text). Every field's value is escaped.
 * A line of the template whose fields from the entry are all missing (no http(s) link, no date,
 * no categories, no summary) is left out, and a link whose href the entry cannot fill keeps only
 * its text. The whole HTML stays within 4096 characters (stricter
 * than Telegram, which counts after parsing) by shortening the longest of the entry's own texts
 * (title, summary, categories) with "…", cut between characters, never inside an escape, a tag
 * or a surrogate pair.
 *
 * Link previews stay on: with `rhash` they carry the Instant View, without it they show the
 * article's card, which is what a feed channel is read for. A template of its own names the
 * Instant View page as the one to preview, wherever (or whether) it puts the link.
 */
export function formatMessage(entry: Entry, options: FormatOptions): Message {
  const template = options.template ?? (defaultTemplate ??= parseTemplate(DEFAULT_TEMPLATE));
  const link = entry.link !== null && /^https?:\/\//i.test(entry.link) ? entry.link : null;
  const values = fieldValues(entry, options, link);
  const message: Message = { html: render(template, values), previews: true };
  if (template.source !== DEFAULT_TEMPLATE && options.rhash !== "" && link !== null) {
    message.previewUrl = messageLink(link, options.rhash);
  }
  return message;
}

/** A slot's raw (unescaped) value for one entry, or null when the entry lacks it. */
type FieldValues = (slot: Slot) => string | null;

/** The fields' values for one entry, each worked out when a template asks for it. */
function fieldValues(entry: Entry, options: FormatOptions, link: string | null): FieldValues {
  return ({ field, length }) => {
    switch (field) {
      case "title":
        return displayTitle(entry);
      case "link":
        return link === null ? null : messageLink(link, options.rhash);
      case "feed":
        return options.feed ?? "";
      case "link_text":
        return options.linkText;
      case "date":
        return entry.published === null ? null : shortDate(entry.published);
      case "categories": {
        const tags = hashtags(entry.categories ?? []);
        return tags === "" ? null : tags;
      }
      case "summary": {
        const summary = entry.summary.trim();
        return summary === "" ? null : cut(summary, length ?? DEFAULT_SUMMARY_LENGTH);
      }
    }
  };
}

/** The fields a message may shorten to fit: the entry's own texts, not links or config text. */
const SHORTENABLE = new Set<FieldName>(["title", "summary", "categories"]);

interface Piece {
  /** Escaped HTML. */
  html: string;
  /** Characters a reader sees (Telegram's measure): tags and attribute values count none. */
  visible: number;
  /** For a shortenable field: its raw value. */
  raw?: string;
}

function render(template: Template, values: FieldValues): string {
  const pieces: Piece[] = [];
  let kept = false;
  for (const line of template.lines) {
    // A link whose href the entry cannot fill keeps its text alone.
    const unwrapped = new Set<number>();
    let fromEntry = 0;
    let lacking = 0;
    for (const part of line.parts) {
      if (isLiteral(part)) continue;
      const missing = values(part) === null;
      if (missing && part.wrap !== undefined) unwrapped.add(part.wrap);
      if (ENTRY_FIELDS.has(part.field)) {
        fromEntry++;
        if (missing) lacking++;
      }
    }
    if (line.droppable && fromEntry > 0 && lacking === fromEntry) continue;
    if (kept) pieces.push({ html: "\n", visible: 1 });
    kept = true;
    for (const part of line.parts) {
      if (part.wrap !== undefined && unwrapped.has(part.wrap)) continue;
      if (isLiteral(part)) {
        pieces.push({ html: part.html, visible: part.visible });
        continue;
      }
      const text = values(part) ?? "";
      const piece: Piece = { html: escapeHtml(text), visible: part.inAttribute ? 0 : text.length };
      if (!part.inAttribute && SHORTENABLE.has(part.field)) piece.raw = text;
      pieces.push(piece);
    }
  }
  return fit(pieces).map((p) => p.html).join("");
}

/**
 * The pieces shortened to fit MAX_MESSAGE_LENGTH: the shortenable ones that are longest are cut
 * to a common length, so that the other pieces and they fit. When the rest leaves too little
 * room (a huge link), Telegram's own measure is used: the text a reader sees, which attribute
 * values (the href) do not count towards.
 */
function fit(pieces: Piece[]): Piece[] {
  let total = 0;
  for (const p of pieces) total += p.html.length;
  if (total <= MAX_MESSAGE_LENGTH) return pieces;
  const shortenable = pieces.filter((p) => p.raw !== undefined);
  if (shortenable.length === 0) return pieces;
  let fixed = 0;
  let fixedVisible = 0;
  for (const p of pieces) {
    if (p.raw !== undefined) continue;
    fixed += p.html.length;
    fixedVisible += p.visible;
  }
  let budget = MAX_MESSAGE_LENGTH - fixed;
  if (budget < 16 * shortenable.length) budget = MAX_MESSAGE_LENGTH - fixedVisible;
  const cap = commonCap(shortenable.map((p) => p.html.length), budget);
  for (const p of shortenable) {
    if (p.html.length > cap) p.html = fitText(p.raw!, cap, escapeHtml);
  }
  return pieces;
}

/** The largest length c such that the lengths, each cut to c, add up to at most `budget`. */
function commonCap(lengths: number[], budget: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let used = 0;
  for (let i = 0; i < sorted.length; i++) {
    const left = sorted.length - i;
    const cap = Math.floor((budget - used) / left);
    if (cap < sorted[i]) return Math.max(0, cap);
    used += sorted[i];
  }
  return Infinity;
}

function displayTitle(entry: Entry): string {
  const title = entry.title.trim();
  if (title !== "") return title;
  const summary = entry.summary.trim();
  if (summary !== "") return summary.length > 200 ? summary.slice(0, 199).trimEnd() + "…" : summary;
  return entry.link ?? "(untitled)";
}

/**
 * The text through `encode`, shortened with "…" so its encoded length is at most `budget`: cut
 * between characters, never inside one's encoding or a surrogate pair.
 */
function fitText(text: string, budget: number, encode = (s: string) => s): string {
  const encoded = encode(text);
  if (encoded.length <= budget) return encoded;
  let out = "";
  for (const char of text) {
    const piece = encode(char);
    if (out.length + piece.length + 1 > budget) break;
    out += piece;
  }
  return out + "…";
}

/** `text` cut to at most `length` characters (code points), "…" marking a cut. */
function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  const chars = Array.from(text);
  if (chars.length <= length) return text;
  return chars.slice(0, length - 1).join("").trimEnd() + "…";
}

/** `2024-05-01 12:00 UTC`: a date every reader of a channel reads the same way. */
function shortDate(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * Categories as Telegram hashtags: runs of characters a hashtag cannot hold become "_", each
 * tag once (case aside), in the feed's order.
 */
export function hashtags(categories: readonly string[]): string {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const category of categories) {
    const tag = category.replace(/[^\p{L}\p{N}\p{M}_]+/gu, "_").replace(/^_+|_+$/g, "");
    if (tag === "" || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    tags.push(`#${tag}`);
  }
  return tags.join(" ");
}

/**
 * The plainest form of an entry's message, for when the messenger refused the formatted one:
 * the title as plain text, then the link itself as text (no parse mode, so nothing to parse;
 * no preview, so no URL to fetch), within Telegram's 4096 characters.
 */
export function plainMessage(entry: Entry): Message {
  const link = entry.link?.trim() ?? "";
  const tail = link === "" || link.length > 1024 ? "" : `\n${link}`;
  const title = fitText(displayTitle(entry), MAX_MESSAGE_LENGTH - tail.length);
  return { html: title + tail, previews: false, plain: true };
}
