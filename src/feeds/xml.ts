import { Parser } from "htmlparser2";
import { type DeclaredEntities, decodeEntities } from "./entities.ts";
import { BLOCK_ELEMENTS } from "./text.ts";

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

/** An element as parseXml builds it. */
class Element implements XmlElement {
  children: XmlElement[] = NO_CHILDREN;
  mixed: (XmlElement | string)[] | null = null;
  #text = "";

  constructor(
    public name: string,
    public attrs: Record<string, string>,
    public base: string,
  ) {}

  get text(): string {
    // With mixed content, the text is its strings: worked out only when read (rarely), rather
    // than one more string joined for every run of whitespace between an entry's children.
    return this.mixed === null ? this.#text : stringsOf(this.mixed);
  }

  /** Adds decoded text (as long as there is no mixed content, which holds it then). */
  appendText(value: string): void {
    this.#text += value;
  }
}

function stringsOf(mixed: (XmlElement | string)[]): string {
  let text = "";
  for (const part of mixed) if (typeof part === "string") text += part;
  return text;
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
 * elements still open when the document ended (a truncated download); `unclosed` is true for
 * an element closed without its own end tag (by an ancestor's, or by the end).
 */
export type OnClose = (
  element: XmlElement,
  parent: XmlElement,
  complete: boolean,
  unclosed: boolean,
) => boolean;

/**
 * Elements that never nest in a feed: a second `<item>` while one is open means the first one
 * lacked its end tag, so it is closed there (as HTML does with `<li>`), not made a parent.
 */
const NO_NESTING = new Set(["item", "entry", "rss:item", "atom:entry"]);

/**
 * Parses XML leniently with htmlparser2: unclosed and mismatched tags are closed implicitly,
 * a bare `&` is text. Returns the top-level elements, normally one; junk before the real root
 * (a PHP warning, say) becomes extra ones.
 */
export function parseXml(
  text: string,
  baseUrl: string,
  entities: DeclaredEntities | undefined,
  onClose?: OnClose,
): XmlElement[] {
  const roots: XmlElement[] = [];
  const stack: Element[] = [];
  const scopes: Scope[] = [{ prefixes: {}, names: new Map() }];
  const scopeDepth: number[] = [];

  const rawNames: string[] = [];
  const closeTop = (complete: boolean, unclosed: boolean) => {
    const element = stack.pop()!;
    rawNames.pop();
    if (onClose && stack.length) {
      const parent = stack[stack.length - 1];
      if (onClose(element, parent, complete, unclosed)) {
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
    if (element.children.length && !element.mixed && !cdata && data.trim() === "") return;
    const value = cdata ? data : decodeEntities(data, entities);
    if (element.mixed) element.mixed.push(value);
    // No text so far: it would have made the content mixed when the first child came.
    else if (element.children.length) element.mixed = [...element.children, value];
    else element.appendText(value);
  };

  const openElement = (rawName: string, attrs: Record<string, string>) => {
    if (NO_NESTING.has(rawName)) {
      const open = rawNames.lastIndexOf(rawName);
      if (open >= 0) { while (stack.length > open) closeTop(true, true); }
    }
    let scope = scopes[scopes.length - 1];
    let declared: Record<string, string> | null = null;
    for (const key in attrs) {
      const value = attrs[key];
      if (value.indexOf("&") >= 0) attrs[key] = decodeEntities(value, entities);
      if (key === "xmlns") (declared ??= {})[""] = attrs[key];
      else if (key.startsWith("xmlns:")) (declared ??= {})[key.slice(6)] = attrs[key];
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
    const xmlBase = attrs["xml:base"];
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
  };

  let inCdata = false;
  let ending = false;
  const parser = new Parser({
    onopentag(rawName, attrs) {
      openElement(rawName, attrs);
    },
    onclosetag(rawName, implied) {
      // htmlparser2 keeps its own stack; ours may already have closed this element (see
      // NO_NESTING), so close by name and ignore a close for an element we do not have open.
      // Nearly always the innermost one.
      const top = rawNames.length - 1;
      const at = top >= 0 && rawNames[top] === rawName ? top : rawNames.lastIndexOf(rawName);
      if (at < 0) return;
      while (stack.length > at) closeTop(!ending, implied || stack.length - 1 > at);
    },
    ontext(data) {
      addText(data, inCdata);
    },
    oncdatastart() {
      inCdata = true;
    },
    oncdataend() {
      inCdata = false;
    },
  }, { xmlMode: true, decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.write(text);
  // Whatever closes from here on was still open when the document ended.
  ending = true;
  parser.end();
  return roots;
}

/**
 * `name` without the prefix `ns` ("atom:title" → "title" for "atom:"), or `name` itself when it
 * has another.
 */
export function withoutPrefix(name: string, ns: string): string {
  return ns !== "" && name.startsWith(ns) ? name.slice(ns.length) : name;
}

/** The first child element with this canonical name. */
export function child(element: XmlElement, name: string): XmlElement | undefined {
  for (const c of element.children) if (c.name === name) return c;
  return undefined;
}

/**
 * All text below the element, with a space where a block element begins or ends (and between
 * elements when the whitespace between them was not kept).
 */
export function deepText(element: XmlElement): string {
  if (element.children.length === 0) return element.text;
  let out = "";
  const mixed = element.mixed;
  for (const c of mixed ?? element.children) {
    if (typeof c === "string") out += c;
    else {
      if (!mixed && out !== "") out += " ";
      const local = c.name.slice(c.name.indexOf(":") + 1);
      if (local === "script" || local === "style") continue;
      const block = BLOCK_ELEMENTS.has(local);
      if (block) out += " ";
      out += deepText(c);
      if (block) out += " ";
    }
  }
  return out;
}
