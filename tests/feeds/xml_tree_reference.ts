/**
 * parseXml as it was before its elements stopped joining every run of text between their
 * children (src/feeds/xml.ts, commit 0ddd970), kept as the reference that
 * xml_tree_test.ts holds the current builder to. Delete both once the new builder has lived a
 * while.
 */
import { type DeclaredEntities, decodeEntities } from "../../src/feeds/entities.ts";
import { NO_ATTRIBUTES, scanXml } from "../../src/feeds/xml_scan.ts";

/**
 * A light element tree. Names are lower-cased and carry a canonical prefix chosen by namespace
 * URI (so `<a:entry xmlns:a="http://www.w3.org/2005/Atom">` is `atom:entry` whatever the
 * document calls it); text children are already decoded.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  /** Direct text, concatenated. */
  text: string;
  /** Child elements. */
  children: XmlElement[];
  /** Text and elements in document order, kept only for mixed content (e.g. xhtml). */
  mixed: (XmlElement | string)[] | null;
  /** The xml:base in effect, resolved against the document URL. */
  base: string;
}

/** Canonical prefixes of the namespaces feeds use, keyed by lower-cased namespace URI. */
const NAMESPACES: Record<string, string> = {
  "http://www.w3.org/2005/atom": "atom",
  "http://purl.org/atom/ns#": "atom03",
  "http://purl.org/rss/1.0/": "rss1",
  "http://purl.org/rss/1.0": "rss1",
  "http://my.netscape.com/rdf/simple/0.9/": "rss090",
  "http://channel.netscape.com/rdf/simple/0.9/": "rss090",
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf",
  "http://purl.org/dc/elements/1.1/": "dc",
  "http://purl.org/dc/terms/": "dcterms",
  "http://purl.org/rss/1.0/modules/content/": "content",
  "http://search.yahoo.com/mrss/": "media",
  "http://search.yahoo.com/mrss": "media",
  "http://www.itunes.com/dtds/podcast-1.0.dtd": "itunes",
  "http://www.w3.org/1999/xhtml": "xhtml",
  "http://www.youtube.com/xml/schemas/2015": "yt",
  "http://backend.userland.com/rss2": "",
  "http://blogs.law.harvard.edu/tech/rss": "",
};

/** Shared by every leaf so that leaves allocate no array; replaced, never pushed to. */
const NO_CHILDREN: XmlElement[] = [];
const NOT_SPACE = /\S/;

/**
 * An element as parseXml builds it. Its first run of text is kept as written and its references
 * decoded when the text is first read: most of a large feed's text (summaries, content) is
 * never read when summaries are not wanted. Only for documents without declared entities, whose
 * expansion budget must be spent while parsing, as before.
 */
class Element implements XmlElement {
  children: XmlElement[] = NO_CHILDREN;
  mixed: (XmlElement | string)[] | null = null;
  #text = "";
  #undecoded = false;

  constructor(
    public name: string,
    public attrs: Record<string, string>,
    public base: string,
  ) {}

  get text(): string {
    if (this.#undecoded) {
      this.#text = decodeEntities(this.#text);
      this.#undecoded = false;
    }
    return this.#text;
  }

  set text(value: string) {
    this.#text = value;
    this.#undecoded = false;
  }

  /** Whether text can be kept as written: the element has none yet, nor children. */
  get bare(): boolean {
    return this.#text === "" && this.children === NO_CHILDREN;
  }

  /** Keeps `raw` as the element's text, its references decoded when read. */
  keepUndecoded(raw: string): void {
    this.#text = raw;
    this.#undecoded = true;
  }
}

interface Scope {
  prefixes: Record<string, string>;
  names: Map<string, string>;
}

function canonicalPrefix(uri: string | undefined, prefix: string): string {
  if (uri === undefined) return prefix;
  const known = NAMESPACES[uri.trim().toLowerCase()];
  return known ?? prefix;
}

function resolveBase(value: string, parent: string): string {
  try {
    return new URL(value.trim(), parent).href;
  } catch {
    return parent;
  }
}

/**
 * Called when an element closes, with its parent; returning true takes the element out of the
 * tree (the caller has consumed it), so items can be turned into entries as they stream past
 * and their nodes die young instead of filling the old generation. `complete` is false for
 * elements still open when the document ended (a truncated download).
 */
export type OnClose = (element: XmlElement, parent: XmlElement, complete: boolean) => boolean;

/**
 * Elements that never nest in a feed: a second `<item>` while one is open means the first one
 * lacked its end tag, so it is closed there (as HTML does with `<li>`), not made a parent.
 */
const NO_NESTING = new Set(["item", "entry", "rss:item", "atom:entry"]);

/**
 * Parses XML leniently (see scanXml: htmlparser2's reading, faster): unclosed and mismatched
 * tags are closed implicitly, a bare `&` is text. Returns the top-level elements, normally one;
 * junk before the real root (a PHP warning, say) becomes extra ones.
 */
export function parseXml(
  text: string,
  baseUrl: string,
  entities: DeclaredEntities | undefined,
  onClose?: OnClose,
): XmlElement[] {
  const roots: XmlElement[] = [];
  const stack: Element[] = [];
  const lazy = entities === undefined;
  const scopes: Scope[] = [{ prefixes: {}, names: new Map() }];
  const scopeDepth: number[] = [];

  const rawNames: string[] = [];
  const closeTop = (complete: boolean) => {
    const element = stack.pop()!;
    rawNames.pop();
    if (onClose && stack.length) {
      const parent = stack[stack.length - 1];
      if (onClose(element, parent, complete)) {
        // The closing element is always its parent's last child.
        parent.children.pop();
        if (parent.mixed) parent.mixed.pop();
      }
    }
    if (scopeDepth.length && scopeDepth[scopeDepth.length - 1] === stack.length) {
      scopeDepth.pop();
      scopes.pop();
    }
  };

  const addText = (data: string, cdata: boolean) => {
    if (stack.length === 0) return;
    const element = stack[stack.length - 1];
    // Indentation between child elements is not content; keeping it would cost a string and a
    // mixed-content list on every container.
    if (element.children.length && !element.mixed && !cdata && !NOT_SPACE.test(data)) return;
    if (lazy && !cdata && element.bare) {
      element.keepUndecoded(data);
      return;
    }
    const value = cdata ? data : decodeEntities(data, entities);
    element.text += value;
    if (element.mixed) element.mixed.push(value);
    else if (element.children.length) element.mixed = [...element.children, value];
  };

  scanXml(text, {
    // The scanner's one later event, read as the events it stands for.
    onleaf(name, attrs, data) {
      this.onopentag(name, attrs);
      if (data !== "") this.ontext(data);
      this.onclosetag(name, false, false);
    },
    onopentag(rawName, attrs) {
      if (NO_NESTING.has(rawName)) {
        const open = rawNames.lastIndexOf(rawName);
        if (open >= 0) { while (stack.length > open) closeTop(true); }
      }
      let scope = scopes[scopes.length - 1];
      let declared: Record<string, string> | null = null;
      const hasAttrs = attrs !== NO_ATTRIBUTES;
      if (hasAttrs) {
        for (const key in attrs) {
          const value = attrs[key];
          if (value.indexOf("&") >= 0) attrs[key] = decodeEntities(value, entities);
          if (key === "xmlns") (declared ??= {})[""] = attrs[key];
          else if (key.startsWith("xmlns:")) (declared ??= {})[key.slice(6)] = attrs[key];
        }
      }
      if (declared) {
        scope = { prefixes: { ...scope.prefixes, ...declared }, names: new Map() };
        scopes.push(scope);
        scopeDepth.push(stack.length);
      }
      let name = scope.names.get(rawName);
      if (name === undefined) {
        const colon = rawName.indexOf(":");
        const prefix = colon < 0 ? "" : rawName.slice(0, colon);
        const local = colon < 0 ? rawName : rawName.slice(colon + 1);
        const canon = canonicalPrefix(scope.prefixes[prefix], prefix);
        name = canon ? `${canon}:${local}` : local;
        scope.names.set(rawName, name);
      }
      const parent = stack.length ? stack[stack.length - 1] : null;
      const parentBase = parent ? parent.base : baseUrl;
      const xmlBase = hasAttrs ? attrs["xml:base"] : undefined;
      const base = xmlBase === undefined ? parentBase : resolveBase(xmlBase, parentBase);
      const element = new Element(name, attrs, base);
      if (parent) {
        if (parent.children === NO_CHILDREN) parent.children = [element];
        else parent.children.push(element);
        if (parent.mixed) parent.mixed.push(element);
        else if (parent.text !== "") parent.mixed = [parent.text, element];
      } else roots.push(element);
      stack.push(element);
      rawNames.push(rawName);
    },
    onclosetag(rawName, atEnd) {
      // The scanner keeps its own stack; ours may already have closed this element (see
      // NO_NESTING), so close by name and ignore a close for an element we do not have open.
      const at = rawNames.lastIndexOf(rawName);
      if (at < 0) return;
      while (stack.length > at) closeTop(!atEnd);
    },
    ontext(data) {
      addText(data, false);
    },
    oncdata(data) {
      addText(data, true);
    },
  });
  return roots;
}
