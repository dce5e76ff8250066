/**
 * courier's message formatter as it was before templates (commit 9d48c11), frozen: the reference
 * the default template must match byte for byte. Never change it to make a test pass.
 */
import type { Entry } from "../../src/model/entry.ts";

const MAX_MESSAGE_LENGTH = 4096;

/** A message ready for `sendMessage` with `parse_mode: HTML`. */
interface Message {
  /** Telegram HTML. */
  html: string;
  /** Whether Telegram should show a link preview (Instant View needs it). */
  previews: boolean;
  /** `html` is plain text, sent with no parse mode (the fallback for a refused message). */
  plain?: boolean;
}

interface FormatOptions {
  /** Text of the link (the feed's `title`, default "Link"). */
  linkText: string;
  /** Instant View template hash; "" for a plain link. */
  rhash: string;
}

/** Escapes text for Telegram HTML: element content and double-quoted attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ESCAPES[c]);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/** The link a message points to: the entry's own, or its Instant View page with `rhash`. */
function messageLink(link: string, rhash: string): string {
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
export function legacyFormatMessage(entry: Entry, options: FormatOptions): Message {
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
