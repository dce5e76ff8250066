/**
 * Walks the YAML document tree and checks it against the field tables, collecting every problem
 * with its key path and position instead of stopping at the first.
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  visit,
} from "yaml";
import { FEED_FIELDS, type Field, TOP_FIELDS } from "./fields.ts";
import { TOKEN_PATTERN } from "./rules.ts";
import { suggest } from "./suggest.ts";

const TOKEN_LIKE = new RegExp(TOKEN_PATTERN);

export interface Problem {
  /** Key path such as `feeds[2].title`; "" for the document itself. */
  path: string;
  line: number;
  col: number;
  message: string;
}

export interface RawFeed {
  name: string;
  channel: string;
  url: string | string[];
  cron: string;
  type: "rss" | "atom";
  rhash?: string;
  proxy?: string;
  title?: string;
  first_time_limit?: number;
  filter?: RawFilter;
  silent?: boolean;
  topic?: number;
  template?: string;
}

/** A `filter` mapping; a single item may stand for a list of one. */
export interface RawFilter {
  include?: string | string[];
  exclude?: string | string[];
  fields?: string | string[];
}

/** The document's values after validation, keys exactly as in the spec. */
export interface RawConfig {
  /** One of the two, or neither when the environment gives the token. */
  messenger_auth_token?: string;
  messenger_auth_token_file?: string;
  feeds: RawFeed[];
  proxy?: string;
  messenger_proxy?: string;
  data_dir?: string;
  last_loaded_path?: string;
  db_dir?: string;
  db_url?: string;
  db_auth_token_file?: string;
  first_time_limit?: number;
  filter?: RawFilter;
  silent?: boolean;
  template?: string;
}

interface MapEntry {
  key: string;
  keyNode: Node;
  value: Node | null;
}

class Walker {
  readonly problems: Problem[] = [];
  /** Key paths offered as "did you mean" for an unknown key. */
  readonly suggested = new Set<string>();

  constructor(private readonly doc: Document, private readonly lines: LineCounter) {}

  report(node: Node | null | undefined, path: string, message: string, fallback?: Node): void {
    const offset = node?.range?.[0] ?? fallback?.range?.[0] ?? 0;
    const { line, col } = this.lines.linePos(offset);
    this.problems.push({ path, line, col, message });
  }

  /** The node an alias points to; other nodes as they are. */
  resolve(node: Node | null): Node | null {
    let current: unknown = node;
    for (let hops = 0; isAlias(current) && hops < 100; hops++) {
      current = current.resolve(this.doc) ?? null;
    }
    return (current as Node | null) ?? null;
  }

  /** The entries of a mapping, with `<<` merge keys expanded (explicit keys win). */
  entries(map: Node, path: string): MapEntry[] {
    if (!isMap(map)) return [];
    const explicit: MapEntry[] = [];
    const merged: MapEntry[] = [];
    for (const pair of map.items) {
      const keyNode = pair.key as Node | null;
      const raw = isScalar(keyNode) ? keyNode.value : undefined;
      // With merge keys on, yaml parses `<<` as a symbol.
      const key = typeof raw === "symbol" && raw.description === "<<" ? "<<" : raw;
      if (typeof key !== "string") {
        this.report(keyNode, path, "keys must be plain strings", map);
        continue;
      }
      if (key === "<<") {
        const sources = this.resolve(pair.value as Node | null);
        const list = isSeq(sources) ? sources.items as Node[] : [sources];
        for (const source of list) {
          const target = this.resolve(source);
          if (isMap(target)) merged.push(...this.entries(target, path));
          else this.report(source, path, "a << merge key needs a mapping (or a list of them)");
        }
        continue;
      }
      explicit.push({ key, keyNode: keyNode as Node, value: pair.value as Node | null });
    }
    const seen = new Set(explicit.map((e) => e.key));
    return [...explicit, ...merged.filter((e) => !seen.has(e.key) && seen.add(e.key))];
  }

  /**
   * Checks one mapping against a field table and returns its plain values. Unknown keys,
   * missing required keys and bad values are all reported.
   */
  object(
    node: Node,
    path: string,
    fields: Record<string, Field>,
    special: (key: string, value: Node | null, path: string) => unknown,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const known = Object.keys(fields);
    const prefix = path === "" ? "" : `${path}.`;
    for (const { key, keyNode, value } of this.entries(node, path)) {
      const keyPath = `${prefix}${key}`;
      const field = fields[key];
      if (!field) {
        // A token that slipped onto a line of its own with a colon after it is read as a key;
        // its place is enough to find it, and printing it would leak it.
        if (TOKEN_LIKE.test(key)) {
          this.report(
            keyNode,
            `${prefix}[redacted]`,
            "unknown key (a token belongs under messenger_auth_token, quoted)",
          );
          continue;
        }
        const hint = suggest(key, known);
        if (hint) this.suggested.add(`${prefix}${hint}`);
        this.report(keyNode, keyPath, `unknown key${hint ? ` (did you mean "${hint}"?)` : ""}`);
        continue;
      }
      const resolved = this.resolve(value);
      if (field.fields) {
        if (isMap(resolved)) out[key] = this.object(resolved, keyPath, field.fields, () => {});
        else {this.report(
            value ?? keyNode,
            keyPath,
            `must be a mapping of keys (${Object.keys(field.fields).join(", ")})`,
          );}
        continue;
      }
      if (!field.check && !field.each) {
        out[key] = special(key, value, keyPath);
        continue;
      }
      if (field.each && isSeq(resolved)) {
        if (resolved.items.length === 0) {
          this.report(value, keyPath, `must list at least one ${field.itemName ?? "item"}`);
        }
        const items = resolved.items.map((item, i) => {
          const plain = this.plain(item as Node);
          this.check(field.each!, plain, item as Node, `${keyPath}[${i}]`);
          return plain;
        });
        out[key] = items;
        continue;
      }
      const plain = this.plain(value);
      this.check((field.check ?? field.each)!, plain, value ?? keyNode, keyPath);
      out[key] = plain;
    }
    for (const [key, field] of Object.entries(fields)) {
      // A misspelt required key is already reported as unknown, with the right name suggested.
      if (field.required && !(key in out) && !this.suggested.has(`${prefix}${key}`)) {
        this.report(node, `${prefix}${key}`, "missing required key");
      }
    }
    return out;
  }

  check(check: (v: unknown) => string | null, value: unknown, node: Node, path: string): void {
    const problem = check(value);
    if (problem) this.report(node, path, problem);
  }

  plain(node: Node | null): unknown {
    const resolved = this.resolve(node);
    if (resolved === null) return null;
    return resolved.toJS(this.doc);
  }
}

/**
 * The token is given once: by one of its two keys, or by the environment (`requireToken`
 * false), which docs/configuration.md's "Secrets" puts first.
 */
function tokenProblems(
  walker: Walker,
  root: Node,
  top: Record<string, unknown>,
  requireToken: boolean,
): void {
  const given = TOKEN_KEYS.filter((key) => key in top);
  if (given.length === 2) {
    const second = walker.entries(root, "").find((e) => e.key === TOKEN_KEYS[1]);
    walker.report(
      second?.keyNode,
      TOKEN_KEYS[1],
      `give ${TOKEN_KEYS[0]} or ${TOKEN_KEYS[1]}, not both`,
      root,
    );
  }
  const misspelt = TOKEN_KEYS.some((key) => walker.suggested.has(key));
  if (given.length === 0 && requireToken && !misspelt) {
    walker.report(root, TOKEN_KEYS[0], `missing required key (${TOKEN_ELSEWHERE})`);
  }
}

/**
 * The state lives in one place: a local `db_dir` or a server's `db_url`. Both at once would
 * leave the user unsure which one holds it, so it is refused, naming the key to drop.
 */
function stateProblems(walker: Walker, root: Node, top: Record<string, unknown>): void {
  const problem = stateKeysProblem(top);
  if (problem === null) return;
  const at = walker.entries(root, "").find((e) => e.key === problem.key);
  walker.report(at?.keyNode, problem.key, problem.message, root);
}

/** Which state key is in the way of which, or null. */
function stateKeysProblem(
  top: Record<string, unknown>,
): { key: string; message: string } | null {
  if ("db_url" in top && "db_dir" in top) {
    return {
      key: "db_dir",
      message: "give db_dir (a local database) or db_url (a libSQL server), not both: " +
        "drop db_dir to keep the state on the server, or db_url to keep it in a local file",
    };
  }
  if ("db_auth_token_file" in top && !("db_url" in top)) {
    return {
      key: "db_auth_token_file",
      message: "is only read with db_url; drop it or set db_url",
    };
  }
  return null;
}

export const TOKEN_KEYS = ["messenger_auth_token", "messenger_auth_token_file"] as const;

/** Where else a token may come from, for the message that says none was found. */
export const TOKEN_ELSEWHERE =
  "or messenger_auth_token_file, or $COURIER_MESSENGER_AUTH_TOKEN(_FILE)";

/** Validates a parsed document; `config` is set only when there are no problems. */
export function validateDocument(
  doc: Document,
  lines: LineCounter,
  requireToken = true,
): { config: RawConfig | null; problems: Problem[] } {
  const walker = new Walker(doc, lines);
  visit(doc, {
    Alias(_key, alias) {
      if (alias.resolve(doc) === undefined) {
        walker.report(
          alias,
          "",
          `unknown alias *${alias.source} (no anchor &${alias.source} before it)`,
        );
      }
    },
  });
  if (walker.problems.length > 0) return { config: null, problems: walker.problems };
  const root = walker.resolve(doc.contents as Node | null);
  if (!isMap(root)) {
    const kind = isSeq(root) ? "a list" : "a single value";
    walker.report(root, "", `the config must be a mapping of keys, got ${kind}`);
    return { config: null, problems: walker.problems };
  }
  const names = new Map<string, string>();
  const top = walker.object(root, "", TOP_FIELDS, (key, value, path) => {
    const resolved = walker.resolve(value);
    if (key === "refs") {
      if (!isMap(resolved)) walker.report(value, path, "must be a mapping (a place for anchors)");
      return undefined;
    }
    if (!isSeq(resolved)) {
      walker.report(value, path, "must be a list of feeds");
      return [];
    }
    if (resolved.items.length === 0) walker.report(value, path, "must list at least one feed");
    return resolved.items.map((item, i) => {
      const feedPath = `feeds[${i}]`;
      const feedNode = walker.resolve(item as Node);
      if (!isMap(feedNode)) {
        walker.report(item as Node, feedPath, "each feed must be a mapping of keys");
        return {};
      }
      const feed = walker.object(feedNode, feedPath, FEED_FIELDS, () => undefined);
      if (typeof feed.name === "string") {
        const first = names.get(feed.name);
        if (first) {
          walker.report(
            walker.entries(feedNode, feedPath).find((e) => e.key === "name")?.value ?? feedNode,
            `${feedPath}.name`,
            `duplicate feed name "${feed.name}" (already used by ${first})`,
          );
        } else names.set(feed.name, feedPath);
      }
      return feed;
    });
  });
  tokenProblems(walker, root, top, requireToken);
  stateProblems(walker, root, top);
  walker.problems.sort((a, b) => a.line - b.line || a.col - b.col);
  return {
    config: walker.problems.length === 0 ? top as unknown as RawConfig : null,
    problems: walker.problems,
  };
}
