import { decodeHTMLStrict, replaceCodePoint } from "entities/decode";

/** The text of HTML5's named reference `&name;`, from the `entities` package's table. */
function htmlNamed(name: string): string | undefined {
  const reference = `&${name};`;
  const decoded = decodeHTMLStrict(reference);
  // Strict mode never reads a prefix ("&notit;" is not "¬it;"), so any change is the whole name.
  return decoded === reference ? undefined : decoded;
}

/** Raised when entity references would expand the document beyond the allowed size. */
export class EntityLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EntityLimitError";
  }
}

/**
 * Entities declared in the document's internal DTD subset, already expanded, plus a budget for
 * how many characters their references may add in total (so a small entity used a million times
 * cannot blow up memory either).
 */
export interface DeclaredEntities {
  values: Map<string, string>;
  /** Names declared SYSTEM/PUBLIC: never fetched or read, their references become "". */
  external: Set<string>;
  budget: number;
}

function fromCodePoint(cp: number): string {
  if (cp >= 0x80 && cp <= 0x9f) {
    // HTML's Windows-1252 reading of C1 code points, which feeds emit as `&#146;` and the like.
    const replaced = replaceCodePoint(cp);
    return replaced === cp ? "\ufffd" : String.fromCodePoint(replaced);
  }
  if (cp === 9 || cp === 10 || cp === 13) return String.fromCharCode(cp);
  if (cp < 0x20 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return cp === 0 ? "" : "\ufffd";
  return String.fromCodePoint(cp);
}

function named(name: string, declared: DeclaredEntities | undefined): string | undefined {
  switch (name) {
    case "amp":
      return "&";
    case "lt":
      return "<";
    case "gt":
      return ">";
    case "quot":
      return '"';
    case "apos":
      return "'";
  }
  if (declared) {
    const value = declared.values.get(name);
    if (value !== undefined) {
      declared.budget -= value.length;
      if (declared.budget < 0) {
        throw new EntityLimitError("entity expansion exceeds the limit (billion laughs?)");
      }
      return value;
    }
    if (declared.external.has(name)) return "";
  }
  return htmlNamed(name);
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 ||
    c === 45 || c === 46;
}

/**
 * Decodes character and entity references leniently: XML's five, HTML's named references,
 * numeric references (C1 code points read as windows-1252), and entities declared in the
 * internal subset. Anything else, such as a bare `&`, stays as it is. Named references need
 * their semicolon: "?a=1&copy=2" in a URL is not a copyright sign. A hand-written scanner
 * because this runs on every text node, where a regex replace showed in parse time.
 */
export function decodeEntities(text: string, declared?: DeclaredEntities): string {
  let amp = text.indexOf("&");
  if (amp < 0) return text;
  const len = text.length;
  let out = "";
  let last = 0;
  while (amp >= 0) {
    let end = amp + 1;
    let replacement: string | undefined;
    if (text.charCodeAt(end) === 35) {
      let i = end + 1;
      const x = text.charCodeAt(i);
      const hex = x === 120 || x === 88;
      if (hex) i++;
      const start = i;
      while (i < len && i - start < 8) {
        const c = text.charCodeAt(i);
        if (hex ? !isHexDigit(c) : c < 48 || c > 57) break;
        i++;
      }
      if (i > start) {
        replacement = fromCodePoint(parseInt(text.slice(start, i), hex ? 16 : 10));
        end = text.charCodeAt(i) === 59 ? i + 1 : i;
      }
    } else {
      const first = text.charCodeAt(end) | 0x20;
      if (first >= 97 && first <= 122) {
        let i = end + 1;
        while (i < len && i - end < 32 && isNameChar(text.charCodeAt(i))) i++;
        if (text.charCodeAt(i) === 59) {
          replacement = named(text.slice(end, i), declared);
          end = i + 1;
        }
      }
    }
    if (replacement !== undefined) {
      out += text.slice(last, amp) + replacement;
      last = end;
      amp = text.indexOf("&", end);
    } else amp = text.indexOf("&", amp + 1);
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Whether `name` (without `&` and `;`) is one of HTML's named character references. */
export function isHtmlEntity(name: string): boolean {
  return htmlNamed(name) !== undefined;
}
