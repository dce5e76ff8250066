/** What the scanner reports, in document order. Names are lower-cased; text is raw (undecoded). */
export interface XmlHandler {
  /** `attrs` is shared and frozen when the element has none. */
  onopentag(name: string, attrs: Record<string, string>): void;
  /**
   * `atEnd`: the element was still open when the document ended. `unclosed`: it had no end
   * tag of its own (an ancestor's closed it, or the end did).
   */
  onclosetag(name: string, atEnd: boolean, unclosed: boolean): void;
  ontext(data: string): void;
  /** The contents of a CDATA section (possibly empty). */
  oncdata(data: string): void;
  /**
   * An element holding only text (possibly none) and ended right after it, `<title>x</title>`:
   * reported at once, it stands for onopentag, ontext (when `data` is not empty) and
   * onclosetag(name, false) in turn.
   */
  onleaf(name: string, attrs: Record<string, string>, data: string): void;
}

const GT = 62;
const SLASH = 47;
const EQ = 61;
const BANG = 33;
const QUESTION = 63;
const DASH = 45;
const BRACKET = 91;
const DQUOTE = 34;
const SQUOTE = 39;

/**
 * The attributes of every element that has none: most feed elements, and an object less each.
 * Frozen, as consumers only read attributes.
 */
export const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<
  string,
  string
>;

/** Most names remembered per first character (a feed uses a few dozen names in all). */
const MAX_KNOWN = 16;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 12;
}

/** Where a tag name ends: whitespace, `/` or `>` (or the end of the text). */
function isNameEnd(c: number): boolean {
  return c === SLASH || c === GT || c === 32 || c === 10 || c === 9 || c === 13 || c === 12;
}

/**
 * A lenient XML scanner that reports exactly what htmlparser2's Parser reports in xmlMode with
 * decodeEntities off and lower-cased names (tests/feeds/xml_scan_test.ts compares the two on
 * the fixtures and on generated malformed input): unclosed elements are closed by an ancestor's
 * end tag or the end of the document, an end tag with nothing to close is ignored, `<` that
 * cannot start a tag is text, markup cut off by the end of the document is dropped or kept as
 * text just as htmlparser2 does. It exists because htmlparser2 reads one character per step
 * through a state machine, which was half of a large feed's parse time; this one jumps from `<`
 * to `<` with indexOf and only walks attributes character by character.
 */
export function scanXml(text: string, handler: XmlHandler): void {
  const len = text.length;
  /** Open element names, innermost last, as htmlparser2's Parser keeps them. */
  const open: string[] = [];
  /** Where the pending text run starts. */
  let textStart = 0;
  let pos = 0;
  /** Text that htmlparser2 emits when the document ends inside markup, or null. */
  let trailing: string | null = null;
  /**
   * Lower-case names already seen, by first character. A name written the same way again is
   * that string, not a new one: no allocation, and its hash is already computed for the lookups
   * the tree builder makes with it. (A name written in capitals is sliced and lowered each time.)
   */
  const known: (string[] | undefined)[] = [];
  const nameAt = (start: number, end: number): string => {
    const first = text.charCodeAt(start);
    const same = first < 128 ? known[first] : undefined;
    if (same) {
      const length = end - start;
      // An indexed loop: for-of allocates an iterator until the JIT optimises it away.
      for (let n = 0; n < same.length; n++) {
        const name = same[n];
        if (name.length !== length) continue;
        let i = 1; // the first character matched already
        while (i < length && text.charCodeAt(start + i) === name.charCodeAt(i)) i++;
        if (i === length) return name;
      }
    }
    const name = text.slice(start, end).toLowerCase();
    const lower = name.charCodeAt(0);
    // Bounded, so a document of endless distinct names costs no more than a few comparisons.
    if (lower < 128) {
      const list = known[lower] ??= [];
      // Not a name with "/", which only an end tag can have: knownAt must not take it for a
      // start tag's, which "/" ends.
      if (list.length < MAX_KNOWN && name.indexOf("/") < 0 && !list.includes(name)) {
        list.push(name);
      }
    }
    return name;
  };

  /**
   * Whether `name` is written at `at`, exactly. The builtin rather than a loop of charCodeAt:
   * it runs at full speed from the first tag, where a loop is interpreted until the JIT gets to it.
   */
  const writtenAt = (name: string, at: number): boolean => text.startsWith(name, at);
  /** The known name a start tag at `at` is written with, ended as a tag name ends, or "". */
  const knownAt = (at: number): string => {
    const first = text.charCodeAt(at);
    const same = first < 128 ? known[first] : undefined;
    if (same) {
      for (let n = 0; n < same.length; n++) {
        const name = same[n];
        if (isNameEnd(text.charCodeAt(at + name.length)) && writtenAt(name, at)) return name;
      }
    }
    return "";
  };

  /** Where the next "<" is, when a start tag has found it already; else -1. */
  let found = -1;

  // Tags are read by functions of their own rather than in the loop: the JIT optimises each one
  // soon, where one loop that held them all took long to compile, and a large feed's scan ran
  // meanwhile in slower code (bench/NOTES.md).

  /** Reads the end tag at `lt`; false when it ends the scan. */
  function endTag(lt: number): boolean {
    let j = lt + 2;
    while (j < len && isSpace(text.charCodeAt(j))) j++;
    if (j >= len) return false; // "</" at the end is text
    const d = text.charCodeAt(j);
    if (d === GT) {
      pos = j + 1; // "</>" is skipped, but its characters stay in the pending text
      return true;
    }
    if (d === SLASH) {
      // "<//...>": a bogus comment up to the next ">".
      const gt = text.indexOf(">", j + 1);
      if (gt < 0) {
        trailing = text.slice(j);
        return false;
      }
      pos = textStart = gt + 1;
      return true;
    }
    // Usually the innermost element's end: its name is compared in place, not scanned for.
    const top = open.length ? open[open.length - 1] : "";
    let k = j + top.length;
    const after = text.charCodeAt(k);
    const isTop = top !== "" && (after === GT || isSpace(after)) && writtenAt(top, j);
    if (!isTop) {
      k = j + 1;
      while (k < len) {
        const e = text.charCodeAt(k);
        if (e === GT || isSpace(e)) break;
        k++;
      }
      if (k >= len) {
        textStart = len;
        return false;
      }
    }
    closeNamed(isTop ? top : nameAt(j, k));
    const gt = text.charCodeAt(k) === GT ? k : text.indexOf(">", k + 1);
    if (gt < 0) {
      trailing = text.slice(-1);
      return false;
    }
    pos = textStart = gt + 1;
    return true;
  }

  /** Reads the start tag at `lt` (and the end tag of a leaf); false when it ends the scan. */
  function startTag(lt: number): boolean {
    let name = knownAt(lt + 1);
    let k = lt + 1 + name.length;
    if (name === "") {
      k = lt + 2;
      while (k < len && !isNameEnd(text.charCodeAt(k))) k++;
      if (k >= len) {
        textStart = len;
        return false;
      }
      name = nameAt(lt + 1, k);
    }
    open.push(name); // before its attributes, as htmlparser2 does: a cut-off tag is still closed
    let attrs = NO_ATTRIBUTES;
    while (true) {
      if (k >= len) {
        textStart = len;
        return false;
      }
      const e = text.charCodeAt(k);
      if (e === GT) {
        pos = textStart = k + 1;
        // Most elements hold only text, and their end tag follows it: compared in place here,
        // it is reported with the element rather than scanned as one more tag.
        const next = text.indexOf("<", pos);
        const end = next + 2 + name.length;
        if (
          next >= 0 && text.charCodeAt(next + 1) === SLASH && text.charCodeAt(end) === GT &&
          writtenAt(name, next + 2)
        ) {
          open.pop();
          handler.onleaf(name, attrs, text.slice(pos, next));
          pos = textStart = end + 1;
        } else {
          handler.onopentag(name, attrs);
          found = next;
        }
        return true;
      }
      if (e === SLASH) {
        k++;
        while (k < len && isSpace(text.charCodeAt(k))) k++;
        if (k >= len) {
          trailing = text.slice(-1);
          textStart = len;
          return false;
        }
        if (text.charCodeAt(k) === GT) {
          handler.onopentag(name, attrs);
          if (open[open.length - 1] === name) {
            open.pop();
            handler.onclosetag(name, false, false);
          }
          pos = textStart = k + 1;
          return true;
        }
        continue; // "/" not followed by ">" is ignored; what follows is read as an attribute
      }
      if (isSpace(e)) {
        k++;
        continue;
      }
      // An attribute name runs to "=", whitespace, "/" or ">".
      const start = k;
      k++;
      while (k < len) {
        const f = text.charCodeAt(k);
        if (f === EQ || isNameEnd(f)) break;
        k++;
      }
      if (k >= len) {
        textStart = len;
        return false;
      }
      const key = nameAt(start, k);
      while (k < len && isSpace(text.charCodeAt(k))) k++;
      if (k >= len) {
        textStart = len;
        return false;
      }
      let value = "";
      if (text.charCodeAt(k) === EQ) {
        k++;
        while (k < len && isSpace(text.charCodeAt(k))) k++;
        if (k >= len) {
          textStart = len;
          return false;
        }
        const q = text.charCodeAt(k);
        if (q === DQUOTE || q === SQUOTE) {
          const close = text.indexOf(q === DQUOTE ? '"' : "'", k + 1);
          if (close < 0) {
            textStart = len;
            return false;
          }
          value = text.slice(k + 1, close);
          k = close + 1;
        } else {
          const vStart = k;
          while (k < len) {
            const f = text.charCodeAt(k);
            if (f === GT || isSpace(f)) break;
            k++;
          }
          if (k >= len) {
            textStart = len;
            return false;
          }
          value = text.slice(vStart, k);
        }
      }
      if (attrs === NO_ATTRIBUTES) attrs = {};
      // The first of duplicate attributes wins.
      if (!Object.prototype.hasOwnProperty.call(attrs, key)) attrs[key] = value;
    }
  }

  while (true) {
    const lt = found >= 0 ? found : text.indexOf("<", pos);
    found = -1;
    if (lt < 0) break;
    if (lt > textStart) handler.ontext(text.slice(textStart, lt));
    textStart = lt;
    if (lt + 1 >= len) break; // a final "<" is text
    const c = text.charCodeAt(lt + 1);

    if (c === BANG) {
      const j = lt + 2;
      if (j >= len) {
        textStart = len;
        break;
      }
      const d = text.charCodeAt(j);
      let gt: number;
      if (d === BRACKET) {
        let k = j + 1;
        const cdata = "CDATA[";
        let matched = 0;
        while (matched < 6 && k < len && text.charCodeAt(k) === cdata.charCodeAt(matched)) {
          matched++;
          k++;
        }
        if (matched === 6) {
          const end = text.indexOf("]]>", k);
          if (end < 0) {
            if (k < len) handler.oncdata(text.slice(k));
            textStart = len;
            break;
          }
          handler.oncdata(text.slice(k, end));
          pos = textStart = end + 3;
          continue;
        }
        if (k >= len) {
          trailing = text.slice(j);
          break;
        }
        gt = text.indexOf(">", k); // the mismatching character is read again as a declaration
      } else if (d === DASH) {
        if (j + 1 >= len) {
          trailing = text.slice(j);
          break;
        }
        if (text.charCodeAt(j + 1) === DASH) {
          // The opener's dashes count towards "-->", so "<!-->" and "<!--->" are whole comments.
          const end = text.indexOf("-->", j);
          if (end < 0) {
            textStart = len;
            break;
          }
          pos = textStart = end + 3;
          continue;
        }
        gt = text.indexOf(">", j + 2); // "<!-x": x is skipped unread, even when it is ">"
      } else {
        gt = text.indexOf(">", j + 1); // likewise the character after "<!"
      }
      if (gt < 0) {
        trailing = text.slice(j);
        break;
      }
      pos = textStart = gt + 1;
      continue;
    }

    if (c === QUESTION) {
      const gt = text.indexOf(">", lt + 2);
      if (gt < 0) {
        if (lt + 2 < len) trailing = text.slice(lt + 2);
        textStart = len;
        break;
      }
      pos = textStart = gt + 1;
      continue;
    }

    if (c === SLASH) {
      if (!endTag(lt)) break;
      continue;
    }

    if (isSpace(c) || c === GT) {
      pos = lt + 1; // "<" that starts no tag: text, from here to the next "<"
      continue;
    }

    // A start tag.
    if (!startTag(lt)) break;
  }

  if (trailing !== null) {
    if (trailing !== "") handler.ontext(trailing);
  } else if (textStart < len) handler.ontext(text.slice(textStart));
  for (let i = open.length - 1; i >= 0; i--) handler.onclosetag(open[i], true, true);

  function closeNamed(name: string): void {
    const last = open.length - 1;
    if (last >= 0 && open[last] === name) {
      open.pop();
      handler.onclosetag(name, false, false);
      return;
    }
    const at = open.lastIndexOf(name);
    if (at < 0) return;
    for (let i = open.length - 1; i >= at; i--) handler.onclosetag(open[i], false, i > at);
    open.length = at;
  }
}
