/**
 * The plain scalars YAML 1.2's core schema reads as something other than a string, with the
 * yaml package's own patterns: how both quick readers (block_yaml.ts, and fast.ts through
 * js-yaml's types) read a plain scalar as the full reader does.
 */

/** A resolved kind of plain scalar: its core-schema tag, what it matches and its value. */
export interface CoreScalar {
  tag: "null" | "bool" | "int" | "float";
  pattern: RegExp;
  construct: (source: string) => null | boolean | number;
}

export const CORE_SCALARS: readonly CoreScalar[] = [
  { tag: "null", pattern: /^(?:~|[Nn]ull|NULL)?$/, construct: () => null },
  {
    tag: "bool",
    pattern: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
    construct: (s) => s[0] === "t" || s[0] === "T",
  },
  {
    tag: "int",
    pattern: /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/,
    construct: (s) => s.startsWith("0o") ? parseInt(s.slice(2), 8) : Number(s),
  },
  {
    tag: "float",
    pattern:
      /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
    construct: (s) =>
      s.endsWith("f") || s.endsWith("F") ? (s[0] === "-" ? -Infinity : Infinity) : Number(s),
  },
];

/** A plain scalar's value under the core schema: the first kind it matches, else the string. */
export function resolvePlain(source: string): null | boolean | number | string {
  for (const { pattern, construct } of CORE_SCALARS) {
    if (pattern.test(source)) return construct(source);
  }
  return source;
}

/** Whether a plain word is read as something other than a string (a key that is not one). */
export function isNonString(source: string): boolean {
  return CORE_SCALARS.some(({ pattern }) => pattern.test(source));
}
