/**
 * Checks the config's plain values (as js-yaml read them) against the field tables, collecting
 * every problem with its key path instead of stopping at the first. Where a problem was written
 * is found only when there is one (yaml.ts's places).
 */
import { FEED_FIELDS, type Field, TOP_FIELDS } from "./fields.ts";
import { TOKEN_RE } from "./rules.ts";
import { suggest } from "./suggest.ts";
import type { Steps } from "./yaml.ts";

export interface Problem {
  /** Key path as shown, such as `feeds[2].title`; "" for the document itself. */
  path: string;
  /** The node it is about, as steps from the document's top. */
  at: Steps;
  /** About the key itself (unknown, or in the way of another), not its value. */
  onKey?: boolean;
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

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping =>
  value !== null && typeof value === "object" && !Array.isArray(value);

class Walker {
  readonly problems: Problem[] = [];
  /** Key paths offered as "did you mean" for an unknown key. */
  readonly suggested = new Set<string>();

  report(at: Steps, path: string, message: string, onKey = false): void {
    this.problems.push({ path, at, onKey, message });
  }

  /**
   * Checks one mapping against a field table and returns its values. Unknown keys, missing
   * required keys and bad values are all reported.
   */
  object(
    node: Mapping,
    at: Steps,
    path: string,
    fields: Record<string, Field>,
    special: (key: string, value: unknown, at: Steps, path: string) => unknown,
  ): Mapping {
    const out: Mapping = {};
    const known = Object.keys(fields);
    const prefix = path === "" ? "" : `${path}.`;
    for (const [key, value] of Object.entries(node)) {
      const keyPath = `${prefix}${key}`;
      const keyAt = [...at, key];
      const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (!field) {
        // A token that slipped onto a line of its own with a colon after it is read as a key;
        // its place is enough to find it, and printing it would leak it.
        if (TOKEN_RE.test(key)) {
          this.report(
            keyAt,
            `${prefix}[redacted]`,
            "unknown key (a token belongs under messenger_auth_token, quoted)",
            true,
          );
          continue;
        }
        const hint = suggest(key, known);
        if (hint) this.suggested.add(`${prefix}${hint}`);
        this.report(
          keyAt,
          keyPath,
          `unknown key${hint ? ` (did you mean "${hint}"?)` : ""}`,
          true,
        );
        continue;
      }
      if (field.fields) {
        if (isMapping(value)) out[key] = this.object(value, keyAt, keyPath, field.fields, () => {});
        else {
          this.report(
            keyAt,
            keyPath,
            `must be a mapping of keys (${Object.keys(field.fields).join(", ")})`,
          );
        }
        continue;
      }
      if (!field.check && !field.each) {
        out[key] = special(key, value, keyAt, keyPath);
        continue;
      }
      if (field.each && Array.isArray(value)) {
        if (value.length === 0) {
          this.report(keyAt, keyPath, `must list at least one ${field.itemName ?? "item"}`);
        }
        value.forEach((item, i) =>
          this.check(field.each!, item, [...keyAt, i], `${keyPath}[${i}]`)
        );
        out[key] = value;
        continue;
      }
      this.check((field.check ?? field.each)!, value, keyAt, keyPath);
      out[key] = value;
    }
    for (const [key, field] of Object.entries(fields)) {
      // A misspelt required key is already reported as unknown, with the right name suggested.
      if (field.required && !(key in out) && !this.suggested.has(`${prefix}${key}`)) {
        this.report(at, `${prefix}${key}`, "missing required key");
      }
    }
    return out;
  }

  check(check: (v: unknown) => string | null, value: unknown, at: Steps, path: string): void {
    const problem = check(value);
    if (problem) this.report(at, path, problem);
  }
}

/**
 * The token is given once: by one of its two keys, or by the environment (`requireToken`
 * false), which docs/configuration.md's "Secrets" puts first.
 */
function tokenProblems(walker: Walker, top: Mapping, requireToken: boolean): void {
  const given = TOKEN_KEYS.filter((key) => key in top);
  if (given.length === 2) {
    walker.report(
      [TOKEN_KEYS[1]],
      TOKEN_KEYS[1],
      `give ${TOKEN_KEYS[0]} or ${TOKEN_KEYS[1]}, not both`,
      true,
    );
  }
  const misspelt = TOKEN_KEYS.some((key) => walker.suggested.has(key));
  if (given.length === 0 && requireToken && !misspelt) {
    walker.report([], TOKEN_KEYS[0], `missing required key (${TOKEN_ELSEWHERE})`);
  }
}

/**
 * The state lives in one place: a local `db_dir` or a server's `db_url`. Both at once would
 * leave the user unsure which one holds it, so it is refused, naming the key to drop.
 */
function stateProblems(walker: Walker, top: Mapping): void {
  if ("db_url" in top && "db_dir" in top) {
    walker.report(
      ["db_dir"],
      "db_dir",
      "give db_dir (a local database) or db_url (a libSQL server), not both: " +
        "drop db_dir to keep the state on the server, or db_url to keep it in a local file",
      true,
    );
  } else if ("db_auth_token_file" in top && !("db_url" in top)) {
    walker.report(
      ["db_auth_token_file"],
      "db_auth_token_file",
      "is only read with db_url; drop it or set db_url",
      true,
    );
  }
}

export const TOKEN_KEYS = ["messenger_auth_token", "messenger_auth_token_file"] as const;

/** Where else a token may come from, for the message that says none was found. */
export const TOKEN_ELSEWHERE =
  "or messenger_auth_token_file, or $COURIER_MESSENGER_AUTH_TOKEN(_FILE)";

/** Validates a config's values; `config` is set only when there are no problems. */
export function validateConfig(
  root: unknown,
  requireToken = true,
): { config: RawConfig | null; problems: Problem[] } {
  const walker = new Walker();
  if (!isMapping(root)) {
    const kind = Array.isArray(root) ? "a list" : "a single value";
    walker.report([], "", `the config must be a mapping of keys, got ${kind}`);
    return { config: null, problems: walker.problems };
  }
  const names = new Map<string, string>();
  const top = walker.object(root, [], "", TOP_FIELDS, (key, value, at, path) => {
    if (key === "refs") {
      if (!isMapping(value)) walker.report(at, path, "must be a mapping (a place for anchors)");
      return undefined;
    }
    if (!Array.isArray(value)) {
      walker.report(at, path, "must be a list of feeds");
      return [];
    }
    if (value.length === 0) walker.report(at, path, "must list at least one feed");
    return value.map((item, i) => {
      const feedPath = `feeds[${i}]`;
      if (!isMapping(item)) {
        walker.report([...at, i], feedPath, "each feed must be a mapping of keys");
        return {};
      }
      const feed = walker.object(item, [...at, i], feedPath, FEED_FIELDS, () => undefined);
      if (typeof feed.name === "string") {
        const first = names.get(feed.name);
        if (first) {
          walker.report(
            [...at, i, "name"],
            `${feedPath}.name`,
            `duplicate feed name "${feed.name}" (already used by ${first})`,
          );
        } else names.set(feed.name, feedPath);
      }
      return feed;
    });
  });
  tokenProblems(walker, top, requireToken);
  stateProblems(walker, top);
  return {
    config: walker.problems.length === 0 ? top as unknown as RawConfig : null,
    problems: walker.problems,
  };
}
