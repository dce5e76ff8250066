/**
 * YAML through js-yaml, for the config and the last-success file: plain values, a syntax error
 * placed at line:col, and (asked only when a value is wrong) where each node was written. js-yaml
 * builds no document tree; its `listener` tells when each node opens and closes, which is enough
 * to find a key path's place again.
 */
import {
  CORE_SCHEMA,
  FAILSAFE_SCHEMA,
  loadAll,
  type LoadOptions,
  type Schema,
  Type,
  YAMLException,
} from "js-yaml";

/** YAML 1.2's core schema (no timestamps: a date stays text) with `<<` merge keys. */
export const CONFIG_SCHEMA: Schema = CORE_SCHEMA.extend({
  implicit: [
    new Type("tag:yaml.org,2002:merge", {
      kind: "scalar",
      resolve: (source: string | null) => source === "<<",
    }),
  ],
});

/** Every scalar as its text: the last-success file's times are read by Date. */
export const TEXT_SCHEMA: Schema = FAILSAFE_SCHEMA;

/** A YAML syntax error, placed. */
export class YamlSyntaxError extends Error {
  override name = "YamlSyntaxError";
  constructor(readonly line: number, readonly col: number, message: string) {
    super(message);
  }
}

/** A node as the listener saw it: where it starts and ends, its value, the nodes inside. */
interface Node {
  start: number;
  end: number;
  value: unknown;
  children: Node[];
}

/** A key path's steps from the document's top: mapping keys and list indexes. */
export type Steps = readonly (string | number)[];

/** Where the nodes of a document were written; built only to place problems. */
export interface Places {
  /** line:col of the node at `steps` (of its key with `onKey`), or of the nearest node above. */
  of(steps: Steps, onKey?: boolean): { line: number; col: number };
}

/**
 * The plain values of `text`, or a YamlSyntaxError. js-yaml stops at the first error; an error
 * costs a second read, with the listener, to find the node it happened in.
 */
export function readYaml(text: string, schema: Schema): unknown {
  try {
    const documents = loadAll(text, null, options(schema));
    if (documents.length < 2) return documents[0] ?? null;
    // One file holds one document: a second one is placed where it begins.
    const second = track(text, schema).children[1];
    throw placedAt(text, second.start, "a second document (one file holds one)");
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    const open: Node[] = [];
    try {
      loadAll(text, null, options(schema, open));
    } catch {
      // The same error again, now with the nodes it happened in.
    }
    throw placed(text, error, open.at(-1));
  }
}

/** Where the nodes of `text` (a document readYaml read without error) were written. */
export function yamlPlaces(text: string, schema: Schema): Places {
  const root = track(text, schema).children[0];
  // An anchored mapping or list is found again where an alias or a merge key names it.
  const anchored = new Map<unknown, Node>();
  const index = (node: Node): void => {
    if (node.value !== null && typeof node.value === "object" && !anchored.has(node.value)) {
      anchored.set(node.value, node);
    }
    node.children.forEach(index);
  };
  if (root) index(root);
  return {
    of(steps, onKey = false) {
      let node = root;
      let key: Node | undefined;
      for (const step of steps) {
        const found = node && child(text, node, step, anchored);
        if (!found) break;
        [key, node] = found;
      }
      // A value written as nothing (`key:` and the next key) is placed right after its colon.
      if (!onKey && node && key !== node && isEmpty(text, node)) return lineCol(text, node.start);
      const at = onKey ? key : node;
      return lineCol(text, at ? contentStart(text, at.start) : 0);
    },
  };
}

/** The nodes of every document of `text`, as children of one made-up node. */
function track(text: string, schema: Schema): Node {
  const open: Node[] = [{ start: 0, end: 0, value: undefined, children: [] }];
  loadAll(text, null, options(schema, open));
  return open[0];
}

/**
 * js-yaml's options; with `open`, a listener that builds the nodes (innermost open last).
 * `maxTotalMergeKeys` is js-yaml 4.3's, not yet in @types/js-yaml 4.0.9.
 */
function options(schema: Schema, open?: Node[]): LoadOptions & { maxTotalMergeKeys: number } {
  return {
    schema,
    // Nothing in YAML that only warns is right in a config: a continuation line indented less
    // than its value is where a quote was never closed.
    onWarning: (error) => {
      throw error;
    },
    // A config of thousands of feeds may merge a `refs` entry into each; the limit is against
    // documents built to expand, which the config's size (read whole) already bounds.
    maxTotalMergeKeys: 1_000_000,
    listener: open && ((event, state) => {
      if (event === "open") {
        open.push({ start: state.position, end: state.position, value: null, children: [] });
        return;
      }
      const node = open.pop()!;
      node.end = state.position;
      node.value = state.result;
      open.at(-1)?.children.push(node);
    }),
  };
}

/** The key node and value node of `step` inside `node`, looking into aliases and merges. */
function child(
  text: string,
  outer: Node,
  step: string | number,
  anchored: Map<unknown, Node>,
): [Node, Node] | null {
  // js-yaml first tries a list item or a document as a mapping's key: a node whose one child
  // has the same value is that child.
  let node = outer;
  while (node.children.length === 1 && node.children[0].value === node.value) {
    node = node.children[0];
  }
  const value = node.value;
  // An alias has no children: its anchor's node has.
  if (node.children.length === 0) {
    const target = anchored.get(value);
    return target && target !== node ? child(text, target, step, anchored) : null;
  }
  if (Array.isArray(value)) {
    // A list item written as nothing (`-` alone) has no node: it is placed at its `-`, the
    // first thing after the item before it.
    let n = 0;
    let after = node.start;
    for (let i = 0; i < value.length && i <= (step as number); i++) {
      const item = node.children[n];
      const found = item && Object.is(item.value, value[i]) ? item : undefined;
      if (i === step) {
        const at = found ?? { start: after, end: after, value: null, children: [] };
        return [at, at];
      }
      if (found) {
        n++;
        after = found.end;
      } else after = contentStart(text, after) + 1;
    }
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const target = (value as Record<string, unknown>)[step];
  const merged: Node[] = [];
  for (let i = 0; i + 1 < node.children.length; i += 2) {
    const [key, item] = [node.children[i], node.children[i + 1]];
    if (key.value === "<<") merged.push(item);
    else if (String(key.value) === String(step) && Object.is(item.value, target)) {
      return [key, item];
    }
  }
  // A key from a `<<` merge is placed where its anchored mapping wrote it.
  for (const source of merged) {
    const sources = Array.isArray(source.value) ? source.value : [source.value];
    for (const mapping of sources) {
      const from = anchored.get(mapping);
      if (from && Object.hasOwn(mapping as object, step)) return child(text, from, step, anchored);
    }
  }
  return null;
}

/** A node written as nothing (`key:` and then the next key). */
function isEmpty(text: string, node: Node | undefined): boolean {
  return node !== undefined && contentStart(text, node.start) >= node.end;
}

/** The first character at or after `at` that is not space, a line break or a comment. */
function contentStart(text: string, at: number): number {
  let i = at;
  while (i < text.length) {
    const c = text[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") i++;
    else if (c === "#") { while (i < text.length && text[i] !== "\n") i++; }
    else break;
  }
  return i;
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

function placedAt(text: string, offset: number, message: string): YamlSyntaxError {
  const { line, col } = lineCol(text, offset);
  return new YamlSyntaxError(line, col, message);
}

/**
 * js-yaml's error, placed. Two are placed where the user's mistake is rather than where the
 * parser noticed it: a quote never closed (noticed lines later) at the quote, an alias without
 * an anchor at the `*`.
 */
function placed(text: string, error: YAMLException, node: Node | undefined): YamlSyntaxError {
  const start = node ? contentStart(text, node.start) : 0;
  const first = node ? text[start] : "";
  const alias = /^unidentified alias "(.*)"$/.exec(error.reason)?.[1];
  if (alias !== undefined && first === "*") {
    return placedAt(text, start, `unknown alias *${alias} (no anchor &${alias} before it)`);
  }
  const unclosed = /deficient indentation|within a (?:single|double) quoted scalar/;
  if ((first === '"' || first === "'") && unclosed.test(error.reason)) {
    return placedAt(text, start, `missing closing ${first}quote`);
  }
  const mark = error.mark ?? { line: 0, column: 0 };
  return new YamlSyntaxError(mark.line + 1, mark.column + 1, error.reason);
}
