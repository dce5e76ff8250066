/**
 * The reader of a valid config: js-yaml builds plain values (no document tree, no positions)
 * and the field tables check them (checked.ts). It only ever answers "valid, and these are the
 * settings" or null, "ask the located reader": any problem at all, or anything where the two
 * libraries could read differently, is left to read_located.ts, which decides and says
 * file:line:col. Two libraries because yaml's document, which the positions need, reads a
 * large config several times slower than js-yaml (bench/NOTES.md).
 */
// @ts-types="@types/js-yaml"
import { FAILSAFE_SCHEMA, load, Type } from "js-yaml";
import { checkedSettings } from "./checked.ts";
import type { Settings } from "./types.ts";

/** A plain scalar of YAML 1.2's core schema, matched as yaml matches it. */
const core = (tag: string, pattern: RegExp, construct: (source: string) => unknown) =>
  new Type(`tag:yaml.org,2002:${tag}`, {
    kind: "scalar",
    resolve: (source: string | null) => source !== null && pattern.test(source),
    construct,
  });

/**
 * YAML 1.2's core schema with the yaml package's own patterns, and `<<` merge keys: how the
 * located reader reads every plain scalar. js-yaml 4's core schema also takes `0b11`, `+0x1F`
 * and `-0o7` as numbers, and its 5th version, which has yaml's patterns, is slower.
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
 * What the two libraries could read differently, so the located reader decides: a key written
 * as `? key`, as a flow collection (`[a]: b`) or as an alias (`*a : b`), where js-yaml gives the
 * value the key stands for and yaml sees a node that is not a plain string; an explicit tag
 * (`!!float 1`), which the two resolve differently in places; and a directive (`%YAML 1.1`
 * makes yaml read `yes` as true); a carriage return that is not part of CRLF (a line break to
 * js-yaml, text to yaml); and a quoted scalar opened at the start of a value and not closed on
 * its line, whose continuation lines yaml holds to the indentation and js-yaml does not. A
 * false alarm (a `!` or `?` inside a value) only costs time.
 */
const FOR_THE_LOCATED_READER = new RegExp(
  [
    /^%|(?:^|[\s[{,])\?(?:\s|$)|[\]}][ \t]*:(?:\s|$)|(?:^|[\s[{,?-])\*[^\s,[\]{}]+[ \t]*:(?:\s|$)/,
    /(?:^|[\s[{,])!|\r(?!\n)/,
    /^[ \t]*(?:- +)*(?:[^\s"'#][^:#\n]*:[ \t]+)?(?:"(?:[^"\\\n]|\\.)*|'(?:[^'\n]|'')*)$/,
  ].map((part) => part.source).join("|"),
  "m",
);

/** The settings of a config that is valid, or null when the located reader must decide. */
export function readValid(text: string, file: string, cwd: string): Settings | null {
  if (FOR_THE_LOCATED_READER.test(text)) return null;
  let doc: unknown;
  try {
    doc = load(text, { schema: SCHEMA });
  } catch {
    return null;
  }
  return checkedSettings(doc, file, cwd);
}
