import type { Entry } from "../feeds/entry.ts";

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
}

export interface FormatOptions {
  /** Text of the link (the feed's `title`, default "Link"). */
  linkText: string;
  /** Instant View template hash; "" for a plain link. */
  rhash: string;
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

/**
 * The message for one entry: its title in bold, then on the next line a link whose text is the
 * feed's link text. Every interpolated value is escaped. The whole HTML stays within 4096
 * characters (stricter than Telegram, which counts after parsing) by shortening the title with
 * "…", cut between characters, never inside an escape or a surrogate pair. Only http(s) links
 * are linked; an entry without one is sent as its title alone.
 *
 * Link previews stay on: with `rhash` they carry the Instant View, without it they show the
 * article's card, which is what a feed channel is read for.
 */
export function formatMessage(entry: Entry, options: FormatOptions): Message {
  const link = entry.link !== null && /^https?:\/\//i.test(entry.link) ? entry.link : null;
  const title = displayTitle(entry);
  const tail = link === null
    ? "</b>"
    : `</b>\n<a href="${escapeHtml(messageLink(link, options.rhash))}">${
      escapeHtml(options.linkText)
    }</a>`;
  const head = "<b>";
  let budget = MAX_MESSAGE_LENGTH - head.length - tail.length;
  if (budget < 16) {
    // A link too long to leave room for a title: fall back to Telegram's own measure, the
    // text after parsing (title + newline + link text), which the href does not count towards.
    budget = MAX_MESSAGE_LENGTH - 1 - options.linkText.length;
  }
  return { html: head + fitTitle(title, budget) + tail, previews: true };
}

function displayTitle(entry: Entry): string {
  const title = entry.title.trim();
  if (title !== "") return title;
  const summary = entry.summary.trim();
  if (summary !== "") return summary.length > 200 ? summary.slice(0, 199).trimEnd() + "…" : summary;
  return entry.link ?? "(untitled)";
}

/** The escaped title, shortened with "…" so its escaped length is at most `budget`. */
function fitTitle(title: string, budget: number): string {
  const escaped = escapeHtml(title);
  if (escaped.length <= budget) return escaped;
  let out = "";
  for (const char of title) {
    const piece = escapeHtml(char);
    if (out.length + piece.length + 1 > budget) break;
    out += piece;
  }
  return out + "…";
}

/**
 * The plainest form of an entry's message, for when the messenger refused the formatted one:
 * the title as plain text, then the link itself as text (no parse mode, so nothing to parse;
 * no preview, so no URL to fetch), within Telegram's 4096 characters.
 */
export function plainMessage(entry: Entry): Message {
  const link = entry.link?.trim() ?? "";
  const tail = link === "" || link.length > 1024 ? "" : `\n${link}`;
  let title = displayTitle(entry);
  const budget = MAX_MESSAGE_LENGTH - tail.length;
  if (title.length > budget) {
    const chars = Array.from(title);
    title = "";
    for (const char of chars) {
      if (title.length + char.length + 1 > budget) break;
      title += char;
    }
    title += "…";
  }
  return { html: title + tail, previews: false, plain: true };
}
