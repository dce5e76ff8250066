/**
 * The second way of reading a config, for one that block_yaml.ts declined (anchors, merge keys,
 * flow mappings, block scalars): js-yaml builds plain values (no document tree, no positions)
 * and the field tables check them. It only ever answers "valid, and these are the settings" or
 * "ask the full reader": any problem at all, or anything where the two readers could disagree,
 * is left to load.ts (the yaml document with positions), which is the one that decides and
 * says file:line:col. yaml's document took several times as long as js-yaml.
 */
// @ts-types="@types/js-yaml"
import { FAILSAFE_SCHEMA, load, Type } from "js-yaml";
import { checkedSettings } from "./checked.ts";
import { CORE_SCALARS } from "./core_schema.ts";
import type { Settings } from "./types.ts";

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
    ...CORE_SCALARS.map(({ tag, pattern, construct }) => core(tag, pattern, construct)),
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
  return checkedSettings(doc, file, cwd);
}
