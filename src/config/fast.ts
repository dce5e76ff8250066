/**
 * The happy path of reading a config: js-yaml builds plain values (no document tree, no
 * positions) and the field tables check them. It only ever answers "valid, and these are the
 * settings" or "ask the full reader": any problem at all, or anything where the two readers
 * could disagree, is left to load.ts (the yaml document with positions), which is the one that
 * decides and says file:line:col. A config is read on every `once`, and yaml's document took
 * several times as long as the rest of a steady-state run's start-up together.
 */
// @ts-types="@types/js-yaml"
import { FAILSAFE_SCHEMA, load, Type } from "js-yaml";
import { effectiveSettings } from "./effective.ts";
import { FEED_FIELDS, type Field, TOP_FIELDS } from "./fields.ts";
import type { Settings } from "./types.ts";
import type { RawConfig } from "./validate.ts";

/** A plain scalar of YAML 1.2's core schema, matched as yaml matches it. */
const core = (tag: string, pattern: RegExp, construct: (source: string) => unknown) =>
  new Type(`tag:yaml.org,2002:${tag}`, {
    kind: "scalar",
    resolve: (source: string | null) => source !== null && pattern.test(source),
    construct,
  });

/**
 * YAML 1.2's core schema with yaml's own patterns, and `<<` merge keys: the full reader's
 * reading of every plain scalar. js-yaml 4's core schema also takes `0b11`, `+0x1F` and `-0o7`
 * as numbers, and its 5th version, which has the same patterns as yaml, took half again as
 * long to parse a large config.
 */
const SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    core("null", /^(?:~|[Nn]ull|NULL)?$/, () => null),
    core("bool", /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === "t" || s[0] === "T"),
    core(
      "int",
      /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/,
      (s) => s.startsWith("0o") ? parseInt(s.slice(2), 8) : Number(s),
    ),
    core(
      "float",
      /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
      (s) => s.endsWith("f") || s.endsWith("F") ? (s[0] === "-" ? -Infinity : Infinity) : Number(s),
    ),
    // js-yaml merges a key of this tag (a plain `<<`) as yaml's `merge: true` does.
    core("merge", /^<<$/, (s) => s),
  ],
});

/**
 * What the two readers could read differently, so the full reader decides: a key written as
 * `? key`, as a flow collection (`[a]: b`) or as an alias (`*a : b`), where js-yaml gives the
 * value the key stands for and the full reader sees a node that is not a plain string; an
 * explicit tag (`!!float 1`), which the two resolve differently in places; and a directive
 * (`%YAML 1.1` makes yaml read `yes` as true). A false alarm (a `!` or `?` inside a value)
 * only costs time.
 */
const FOR_THE_FULL_READER =
  /^%|(?:^|[\s[{,])\?(?:\s|$)|[\]}][ \t]*:(?:\s|$)|(?:^|[\s[{,?-])\*[^\s,[\]{}]+[ \t]*:(?:\s|$)|(?:^|[\s[{,])!/m;

/** The settings of a config that is valid, or null when the full reader must decide. */
export function fastSettings(text: string, file: string, cwd: string): Settings | null {
  if (FOR_THE_FULL_READER.test(text)) return null;
  let doc: unknown;
  try {
    doc = load(text, { schema: SCHEMA });
  } catch {
    return null;
  }
  const top = fieldsOf(doc, TOP_FIELDS);
  if (top === null) return null;
  if (top.refs !== undefined && !isMapping(top.refs)) return null;
  delete top.refs;
  const feeds = top.feeds;
  if (!Array.isArray(feeds) || feeds.length === 0) return null;
  const names = new Set<string>();
  const checked: Record<string, unknown>[] = [];
  for (const item of feeds) {
    const feed = fieldsOf(item, FEED_FIELDS);
    if (feed === null || names.has(feed.name as string)) return null;
    names.add(feed.name as string);
    checked.push(feed);
  }
  top.feeds = checked;
  return effectiveSettings(top as unknown as RawConfig, file, cwd);
}

/**
 * A mapping's values checked against a field table, or null on any problem: a key that is not
 * a known field, a missing required key, a value its check refuses. `feeds` and `refs`, which
 * have no check, are returned as they are for the caller.
 */
function fieldsOf(node: unknown, table: Record<string, Field>): Record<string, unknown> | null {
  if (!isMapping(node)) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!Object.hasOwn(table, key)) return null;
    const field = table[key];
    if (field.each && Array.isArray(value)) {
      if (value.length === 0 || value.some((item) => field.each!(item) !== null)) return null;
    } else if (field.check || field.each) {
      if ((field.check ?? field.each)!(value) !== null) return null;
    }
    out[key] = value;
  }
  for (const [key, field] of Object.entries(table)) {
    if (field.required && !(key in out)) return null;
  }
  return out;
}

/** A YAML mapping as js-yaml builds it: a plain object. */
function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
