/**
 * A feed's message template: Telegram HTML with named fields (`{title}`, `{link}`, ...). The
 * template's own markup is checked once, when the config is read (parseTemplate), against the
 * tags Telegram accepts; each field's value is escaped when a message is made (format.ts).
 */

/** The fields a template may name. */
export const FIELD_NAMES = [
  "title",
  "link",
  "feed",
  "link_text",
  "date",
  "categories",
  "summary",
] as const;

export type FieldName = typeof FIELD_NAMES[number];

/** How many characters `{summary}` keeps when the template does not say (`{summary:N}`). */
export const DEFAULT_SUMMARY_LENGTH = 300;

/** Today's message: the title in bold, then a link whose text is the feed's `title`. */
export const DEFAULT_TEMPLATE = '<b>{title}</b>\n<a href="{link}">{link_text}</a>';

/** Template HTML as written, and how many characters of it a reader sees (tags count none). */
export interface Literal {
  html: string;
  visible: number;
  /** Part of the tags of link `wrap` (see Slot.wrap). */
  wrap?: number;
}

export interface Slot {
  field: FieldName;
  /**
   * In the `href` of a link numbered so: when the entry lacks this field, the link's tags are
   * left out and its text stays.
   */
  wrap?: number;
  /** Inside an attribute (`href="{link}"`): never shortened, never seen as text. */
  inAttribute: boolean;
  /** For `{summary:N}`: the characters kept. */
  length?: number;
}

export type Part = Literal | Slot;

/** One line of the template (they are joined with "\n"). */
export interface TemplateLine {
  parts: Part[];
  /**
   * Whether no tag is open across its ends: such a line is left out of a message whose entry
   * lacks every one of its entry fields (ENTRY_FIELDS), the way today's message has no link
   * line for an entry without a link.
   */
  droppable: boolean;
}

/** The fields whose value comes from the entry, which it may lack; the others are the feed's. */
export const ENTRY_FIELDS: ReadonlySet<FieldName> = new Set<FieldName>([
  "title",
  "link",
  "date",
  "categories",
  "summary",
]);

export interface Template {
  source: string;
  lines: TemplateLine[];
}

/** The template cannot be used; the message says what and at which character. */
export class TemplateError extends Error {
  override name = "TemplateError";
}

/**
 * The tags Telegram's HTML accepts, with the attributes each may carry: a value `true` means
 * any value (fields allowed in `href` only), a RegExp what the value must be.
 */
const TAGS: Record<string, Record<string, true | RegExp>> = {
  b: {},
  strong: {},
  i: {},
  em: {},
  u: {},
  ins: {},
  s: {},
  strike: {},
  del: {},
  "tg-spoiler": {},
  span: { class: /^tg-spoiler$/ },
  a: { href: true },
  code: { class: /^language-[A-Za-z0-9_+#.-]+$/ },
  pre: {},
  blockquote: {},
};

/** Attributes a tag cannot do without. */
const REQUIRED: Record<string, string> = { a: "href", span: "class" };

const ENTITY = /^&(?:lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});/;

export const isLiteral = (part: Part): part is Literal => "html" in part;

/** Parses and checks a template; throws TemplateError naming the problem and its place. */
export function parseTemplate(source: string): Template {
  return new Parser(source).parse();
}

/** Why `source` is not a usable template, or null. */
export function templateProblem(source: string): string | null {
  try {
    parseTemplate(source);
    return null;
  } catch (error) {
    if (error instanceof TemplateError) return error.message;
    throw error;
  }
}

class Parser {
  #at = 0;
  readonly #lines: TemplateLine[] = [];
  #parts: Part[] = [];
  #text = "";
  #visible = 0;
  readonly #open: { tag: string; at: number; wrap?: number }[] = [];
  #openAtLineStart = 0;
  /** The link whose tag is being read, when its href has a field. */
  #wrap: number | undefined;
  #links = 0;

  constructor(private readonly source: string) {}

  parse(): Template {
    const s = this.source;
    if (s.trim() === "") throw new TemplateError("must not be empty");
    while (this.#at < s.length) {
      const c = s[this.#at];
      if (c === "{") this.#field(false);
      else if (c === "}") {
        this.#literal("}", 1);
        this.#at += s[this.#at + 1] === "}" ? 2 : 1;
      } else if (c === "<") this.#tag();
      else if (c === "&") {
        const entity = ENTITY.exec(s.slice(this.#at, this.#at + 12));
        if (entity === null) {
          throw this.#error("a bare & (write &amp; for the character itself)");
        }
        this.#literal(entity[0], 1);
        this.#at += entity[0].length;
      } else if (c === ">") {
        throw this.#error("a > outside a tag (write &gt; for the character itself)");
      } else if (c === "\n") {
        this.#endLine();
        this.#at++;
      } else {
        this.#literal(c, 1);
        this.#at++;
      }
    }
    if (this.#open.length > 0) {
      const { tag, at } = this.#open[this.#open.length - 1];
      throw new TemplateError(`<${tag}> at character ${at + 1} is never closed`);
    }
    this.#endLine();
    return { source: s, lines: this.#lines };
  }

  #error(what: string, at = this.#at): TemplateError {
    return new TemplateError(`${what} at character ${at + 1}`);
  }

  #literal(html: string, visible: number): void {
    this.#text += html;
    this.#visible += visible;
  }

  #flush(): void {
    if (this.#text === "") return;
    const part: Literal = { html: this.#text, visible: this.#visible };
    if (this.#wrap !== undefined) part.wrap = this.#wrap;
    this.#parts.push(part);
    this.#text = "";
    this.#visible = 0;
  }

  #endLine(): void {
    this.#flush();
    this.#lines.push({
      parts: this.#parts,
      droppable: this.#openAtLineStart === 0 && this.#open.length === 0,
    });
    this.#parts = [];
    this.#openAtLineStart = this.#open.length;
  }

  /** `{name}` or `{summary:N}` at the current place; `{{` is a literal brace. */
  #field(inAttribute: boolean): void {
    const s = this.source;
    if (s[this.#at + 1] === "{") {
      if (inAttribute) throw this.#error("a { in an attribute");
      this.#literal("{", 1);
      this.#at += 2;
      return;
    }
    const end = s.indexOf("}", this.#at);
    const inner = end < 0 ? "" : s.slice(this.#at + 1, end);
    const match = /^([a-z_]+)(?::([0-9]{1,4}))?$/.exec(inner);
    const name = match?.[1] as FieldName | undefined;
    if (match === null || name === undefined || !FIELD_NAMES.includes(name)) {
      const shown = end < 0 ? s.slice(this.#at, this.#at + 20) : `{${inner}}`;
      throw this.#error(
        `unknown field ${shown} (fields: ${FIELD_NAMES.map((f) => `{${f}}`).join(", ")}, ` +
          "{summary:N}; write {{ for a literal brace)",
      );
    }
    const slot: Slot = { field: name, inAttribute };
    if (inAttribute && this.#wrap !== undefined) slot.wrap = this.#wrap;
    if (match[2] !== undefined) {
      if (name !== "summary") throw this.#error(`only {summary:N} takes a length, not {${inner}}`);
      slot.length = Number(match[2]);
      if (slot.length < 1) throw this.#error("{summary:N} needs a length of at least 1");
    }
    this.#flush();
    this.#parts.push(slot);
    this.#at = end + 1;
  }

  #tag(): void {
    const s = this.source;
    const start = this.#at;
    const close = /^<\/([A-Za-z-]+)\s*>/.exec(s.slice(start, start + 40));
    if (close) {
      const tag = close[1].toLowerCase();
      const top = this.#open.pop();
      if (top === undefined || top.tag !== tag) {
        throw this.#error(
          top === undefined
            ? `</${tag}> closes no open tag`
            : `</${tag}> where </${top.tag}> (opened at character ${top.at + 1}) must close first`,
          start,
        );
      }
      if (top.wrap !== undefined) {
        this.#flush();
        this.#wrap = top.wrap;
      }
      this.#literal(close[0], 0);
      this.#at += close[0].length;
      this.#flush();
      this.#wrap = undefined;
      return;
    }
    const name = /^<([A-Za-z][A-Za-z-]*)/.exec(s.slice(start, start + 40))?.[1].toLowerCase();
    if (name === undefined) throw this.#error("a < that starts no tag (write &lt;)", start);
    const allowed = TAGS[name];
    if (allowed === undefined) {
      throw this.#error(
        `<${name}> is not a tag Telegram accepts (${
          Object.keys(TAGS).map((t) => `<${t}>`).join(", ")
        })`,
        start,
      );
    }
    if (name === "a" && this.#open.some((o) => o.tag === "a")) {
      throw this.#error("a link inside a link", start);
    }
    this.#flush();
    // A link's tags go with its href's field: numbered for the renderer to leave them out.
    const tagEnd = s.indexOf(">", start);
    const hrefHasField = name === "a" && tagEnd > 0 && s.slice(start, tagEnd).includes("{");
    if (hrefHasField) this.#wrap = ++this.#links;
    this.#at = start + 1 + name.length;
    this.#literal(s.slice(start, this.#at), 0);
    const seen = new Set<string>();
    for (;;) {
      const spaces = /^\s*/.exec(s.slice(this.#at))![0];
      this.#at += spaces.length;
      if (s[this.#at] === ">") {
        this.#literal(">", 0);
        this.#at++;
        break;
      }
      const attr = /^([A-Za-z-]+)="/.exec(s.slice(this.#at, this.#at + 40));
      if (spaces === "" || attr === null) {
        throw this.#error(`<${name}>: attributes are written name="value"`, this.#at);
      }
      const key = attr[1].toLowerCase();
      const rule = allowed[key];
      if (rule === undefined || seen.has(key)) {
        throw this.#error(`<${name}> cannot have ${seen.has(key) ? "another " : ""}${key}`);
      }
      seen.add(key);
      this.#literal(` ${attr[0]}`, 0);
      this.#at += attr[0].length;
      this.#attributeValue(name, key, rule);
    }
    const required = REQUIRED[name];
    if (required !== undefined && !seen.has(required)) {
      throw this.#error(`<${name}> needs ${required}="..."`, start);
    }
    this.#flush();
    this.#open.push({ tag: name, at: start, wrap: this.#wrap });
    this.#wrap = undefined;
  }

  /** An attribute's value up to its closing quote; fields only where `rule` is `true`. */
  #attributeValue(tag: string, key: string, rule: true | RegExp): void {
    const s = this.source;
    const from = this.#at;
    let value = "";
    while (this.#at < s.length && s[this.#at] !== '"') {
      const c = s[this.#at];
      if (c === "{" && rule === true) {
        this.#field(true);
        value += "{}";
        continue;
      }
      if (c === "<" || c === "\n" || c === "{") {
        throw this.#error(`<${tag} ${key}>: ${JSON.stringify(c)} in an attribute value`);
      }
      if (c === "&") {
        const entity = ENTITY.exec(s.slice(this.#at, this.#at + 12));
        if (entity === null) throw this.#error("a bare & (write &amp;)");
        this.#literal(entity[0], 0);
        value += entity[0];
        this.#at += entity[0].length;
        continue;
      }
      this.#literal(c, 0);
      value += c;
      this.#at++;
    }
    if (this.#at >= s.length) throw this.#error(`<${tag} ${key}=...> has no closing quote`, from);
    if (rule !== true && !rule.test(value)) {
      throw this.#error(`<${tag} ${key}="${value}"> is not a value Telegram accepts`, from);
    }
    this.#literal('"', 0);
    this.#at++;
  }
}
