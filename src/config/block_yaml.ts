/**
 * The YAML that configs are written in, read as plain values in one pass over the lines: block
 * mappings and sequences, plain, single- and double-quoted one-line scalars, one-line flow
 * sequences of plain scalars (`url: [a, b]`), `{}`, and comments. Anything else (anchors, aliases,
 * tags, flow mappings, block and multi-line scalars, explicit keys, directives, a duplicate key,
 * a key that is not a plain word, tabs in the indentation) is declined: `undefined` comes back
 * and the readers with a YAML library decide (fast.ts, then load.ts, which reports problems).
 *
 * What it accepts it reads exactly as the yaml package reads it with YAML 1.2's core schema
 * (tests/config/block_yaml_test.ts holds the two side by side). It exists because a config is
 * read on every `once`: loading and running a YAML library on a 500-feed config took more of a
 * steady-state run than everything else before the first fetch.
 */

import { isNonString, resolvePlain } from "./core_schema.ts";

/** A YAML value as plain data. */
export type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

/** Thrown inside the reader for anything it leaves to a YAML library; never escapes. */
const DECLINE = Symbol("decline");

interface Line {
  /** Spaces before the content. */
  indent: number;
  /** The line after its indentation (comments are only cut where a scalar is read). */
  text: string;
}

/** The document's value, or undefined when a YAML library must read it. */
export function readBlockYaml(text: string): Plain | undefined {
  if (UNUSUAL.test(text)) return undefined;
  const lines: Line[] = [];
  for (let raw of text.split("\n")) {
    if (raw.endsWith("\r")) raw = raw.slice(0, -1);
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent++;
    const rest = indent === 0 ? raw : raw.slice(indent);
    if (rest === "" || rest[0] === "#") continue;
    // A tab may not indent; `---`, `...` and `%` are document markers and directives.
    if (rest[0] === "\t" || (indent === 0 && /^(?:---|\.\.\.|%)/.test(rest))) return undefined;
    lines.push({ indent, text: rest });
  }
  const at = { i: 0 };
  try {
    const value = lines.length === 0 ? null : block(lines, at, 0);
    return at.i === lines.length ? value : undefined;
  } catch (error) {
    if (error === DECLINE) return undefined;
    throw error;
  }
}

/**
 * Characters yaml refuses or reads as line breaks where a line reader would not (controls, a
 * lone carriage return, a byte order mark inside the text, lone surrogates).
 */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const UNUSUAL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\p{Cs}]|\r(?!\n)/u;

const isItem = (text: string) => text === "-" || text.startsWith("- ");

/** The block node starting at line `at.i`, whose lines are indented at least `min`. */
function block(lines: Line[], at: { i: number }, min: number): Plain {
  const line = lines[at.i];
  if (line === undefined || line.indent < min) return null;
  return isItem(line.text) ? sequence(lines, at, line.indent) : mapping(lines, at, line.indent);
}

function sequence(lines: Line[], at: { i: number }, indent: number): Plain[] {
  const items: Plain[] = [];
  for (let line = lines[at.i]; line?.indent === indent && isItem(line.text); line = lines[at.i]) {
    let column = 1;
    while (line.text[column] === " ") column++;
    const rest = line.text.slice(column);
    if (rest === "" || rest[0] === "#") {
      at.i++;
      items.push(block(lines, at, indent + 1));
    } else if (isItem(rest)) {
      throw DECLINE; // `- - a`
    } else if (!QUOTED.test(rest) && keyOf(rest) !== null) {
      // A mapping that starts on the dash's line: its keys line up with the first one.
      lines[at.i] = { indent: indent + column, text: rest };
      items.push(mapping(lines, at, indent + column));
    } else {
      at.i++;
      items.push(scalar(rest));
    }
  }
  return items;
}

function mapping(lines: Line[], at: { i: number }, indent: number): Plain {
  const map: { [key: string]: Plain } = {};
  for (let line = lines[at.i]; line !== undefined && line.indent >= indent; line = lines[at.i]) {
    if (line.indent > indent) throw DECLINE;
    const entry = keyOf(line.text);
    if (entry === null) {
      if (isItem(line.text)) break; // the next item of a sequence at this mapping's indent
      throw DECLINE;
    }
    const [key, rest] = entry;
    if (Object.hasOwn(map, key)) throw DECLINE; // yaml reports it
    at.i++;
    if (rest === "" || rest[0] === "#") {
      const next = lines[at.i];
      // A sequence may sit at its key's own indentation.
      if (next?.indent === indent && isItem(next.text)) map[key] = sequence(lines, at, indent);
      else map[key] = block(lines, at, indent + 1);
    } else {
      map[key] = scalar(rest);
      // A more indented line would continue the scalar over several lines.
      if ((lines[at.i]?.indent ?? -1) > indent) throw DECLINE;
    }
  }
  return map;
}

/**
 * `key: rest` for a key that is a plain word, which yaml reads as that string; null for a line
 * that is not a mapping entry. Words that the core schema reads as null or a boolean, and
 * `__proto__` and `<<` (merge), are declined.
 */
function keyOf(text: string): [string, string] | null {
  const match = KEY.exec(text);
  if (match === null) {
    if (/^["'?]|^[^ \t#]*[^ \t]:(?:[ \t]|$)/.test(text)) throw DECLINE; // some other kind of key
    return null;
  }
  const key = match[1];
  // A word read as a number is no key here: KEY takes no digit first.
  if (isNonString(key) || key === "__proto__") throw DECLINE;
  return [key, text.slice(match[0].length)];
}

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +|$)/;

/**
 * A plain scalar may not start with an indicator (`-`, `?` and `:` only when followed by a
 * space), and may not hold `: ` (a mapping), a tab or, in a flow sequence, `,[]{}`.
 */
const PLAIN = /^(?:[^\-?:,\[\]{}#&*!|>'"%@` \t]|[\-?:][^ \t,\[\]{}])[^\t]*$/;
// deno-lint-ignore no-control-regex -- a quoted scalar may not hold them raw
const DOUBLE = /^"((?:[^"\\\x00-\x1f\x7f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"[ ]*(?:[ ]#.*)?$/;
// deno-lint-ignore no-control-regex -- a quoted scalar may not hold them raw
const SINGLE = /^'((?:[^'\x00-\x08\x0a-\x1f\x7f]|'')*)'[ ]*(?:[ ]#.*)?$/;
/** A whole quoted scalar (and maybe a comment), as opposed to a quoted key. */
const QUOTED = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ ]*(?:[ ]#.*)?$/;
const FLOW = /^\[([^\[\]{}"'#]*)\][ ]*(?:[ ]#.*)?$/;

/**
 * `text` without the spaces and tabs around it: YAML's white space. String#trim would also take
 * away what YAML keeps as content (a no-break space, other Unicode spaces).
 */
const trimmed = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, "");

/** The value written after `key: ` or `- `, on one line. */
function scalar(text: string): Plain {
  switch (text[0]) {
    case '"': {
      const match = DOUBLE.exec(text);
      if (match === null) throw DECLINE;
      // Only the escapes that JSON and YAML read alike are taken.
      return JSON.parse(`"${match[1]}"`);
    }
    case "'": {
      const match = SINGLE.exec(text);
      if (match === null) throw DECLINE;
      return match[1].replaceAll("''", "'");
    }
    case "{":
      if (/^\{[ ]*\}[ ]*(?:[ ]#.*)?$/.test(text)) return {}; // `refs: {}`
      throw DECLINE;
    case "[": {
      const match = FLOW.exec(text);
      if (match === null) throw DECLINE;
      const inner = trimmed(match[1]);
      if (inner === "") return [];
      return inner.split(",").map((item) => {
        const source = trimmed(item);
        if (!PLAIN.test(source) || /:(?:[ \t]|$)/.test(source)) throw DECLINE;
        return resolvePlain(source);
      });
    }
  }
  const hash = text.search(/[ \t]#/);
  const source = trimmed(hash < 0 ? text : text.slice(0, hash));
  if (!PLAIN.test(source) || /:(?:[ \t]|$)| #/.test(source)) throw DECLINE;
  return resolvePlain(source);
}
