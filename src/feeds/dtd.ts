import { type DeclaredEntities, decodeEntities, EntityLimitError } from "./entities.ts";

/** Largest expansion of one declared entity, in characters. */
export const MAX_ENTITY_LENGTH = 64 * 1024;
/** Most characters all references to declared entities may add to one document. */
export const MAX_TOTAL_EXPANSION = 4 * 1024 * 1024;

export interface Prolog {
  /** The document with its DOCTYPE cut out (the parser never sees the DTD). */
  body: string;
  /** Declared internal entities, or undefined when the document declares none. */
  entities: DeclaredEntities | undefined;
  warnings: string[];
}

/** Where the DOCTYPE declaration ends, honouring quotes, comments and an internal subset. */
function doctypeEnd(text: string, start: number): { end: number; subset: string } {
  let subsetStart = -1;
  let subset = "";
  let inSubset = false;
  for (let i = start + 9; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, i + 1);
      if (close < 0) break;
      i = close;
    } else if (inSubset && c === "<" && text.startsWith("<!--", i)) {
      const close = text.indexOf("-->", i + 4);
      if (close < 0) break;
      i = close + 2;
    } else if (c === "[" && !inSubset) {
      inSubset = true;
      subsetStart = i + 1;
    } else if (c === "]" && inSubset) {
      inSubset = false;
      subset = text.slice(subsetStart, i);
    } else if (c === ">" && !inSubset) {
      return { end: i + 1, subset };
    }
  }
  return { end: text.length, subset: subsetStart >= 0 ? text.slice(subsetStart) : "" };
}

/**
 * Where the DOCTYPE declaration before the root element starts, or -1. Comments and processing
 * instructions are skipped whole: a comment that quotes "<!DOCTYPE" holds no doctype.
 */
function findDoctype(text: string): number {
  let i = text.indexOf("<");
  while (i >= 0) {
    if (text.startsWith("<!--", i)) {
      const close = text.indexOf("-->", i + 4);
      if (close < 0) return -1;
      i = text.indexOf("<", close + 3);
    } else if (text.startsWith("<?", i)) {
      const close = text.indexOf("?>", i + 2);
      if (close < 0) return -1;
      i = text.indexOf("<", close + 2);
    } else if (/^<!DOCTYPE/i.test(text.slice(i, i + 9))) {
      return i;
    } else if (/[A-Za-z_]/.test(text[i + 1] ?? "")) {
      return -1; // the root element: a DOCTYPE after it is not the document's
    } else {
      i = text.indexOf("<", i + 1);
    }
  }
  return -1;
}

const ENTITY_DECL =
  /<!ENTITY\s+(%\s+)?([A-Za-z_][\w.-]*)\s+(?:"([^"]*)"|'([^']*)'|(SYSTEM|PUBLIC)\b[^>]*)\s*>/g;

/**
 * Cuts the DOCTYPE out of the prolog and reads the general entities of its internal subset.
 * External entities are recorded only so their references can be dropped: nothing is ever
 * fetched or read. An entity whose expansion would exceed MAX_ENTITY_LENGTH (the
 * "billion laughs" shape) or that refers to itself makes the whole document refused, computed on
 * lengths before anything is expanded, so memory stays bounded.
 */
export function readProlog(text: string): Prolog {
  const start = findDoctype(text);
  if (start < 0) return { body: text, entities: undefined, warnings: [] };
  const { end, subset } = doctypeEnd(text, start);
  const body = text.slice(0, start) + text.slice(end);
  if (!subset.includes("<!ENTITY")) return { body, entities: undefined, warnings: [] };

  const raw = new Map<string, string>();
  const external = new Set<string>();
  const warnings: string[] = [];
  for (const m of subset.matchAll(ENTITY_DECL)) {
    if (m[1]) continue; // parameter entities only matter inside the DTD, which we do not read
    const name = m[2];
    if (raw.has(name) || external.has(name)) continue; // the first declaration binds
    if (m[5]) {
      external.add(name);
      warnings.push(`external entity &${name}; ignored (never fetched)`);
    } else raw.set(name, m[3] ?? m[4] ?? "");
  }

  // Expanded length of every entity, by memoised recursion over lengths only.
  const lengths = new Map<string, number>();
  const visiting = new Set<string>();
  const lengthOf = (name: string): number => {
    const known = lengths.get(name);
    if (known !== undefined) return known;
    if (visiting.has(name)) throw new EntityLimitError(`entity &${name}; refers to itself`);
    visiting.add(name);
    const value = raw.get(name)!;
    let total = value.length;
    for (const ref of value.matchAll(/&([A-Za-z_][\w.-]*);/g)) {
      if (raw.has(ref[1])) total += lengthOf(ref[1]) - ref[0].length;
    }
    visiting.delete(name);
    lengths.set(name, total);
    return total;
  };
  for (const name of raw.keys()) {
    if (lengthOf(name) > MAX_ENTITY_LENGTH) {
      throw new EntityLimitError(
        `entity &${name}; would expand beyond ${MAX_ENTITY_LENGTH} characters (billion laughs?)`,
      );
    }
  }

  const values = new Map<string, string>();
  const expand = (name: string): string => {
    const done = values.get(name);
    if (done !== undefined) return done;
    const value = raw.get(name)!.replace(
      /&([A-Za-z_][\w.-]*);/g,
      (ref, inner: string) => raw.has(inner) ? expand(inner) : ref,
    );
    const decoded = decodeEntities(value);
    values.set(name, decoded);
    return decoded;
  };
  for (const name of raw.keys()) expand(name);
  return { body, entities: { values, external, budget: MAX_TOTAL_EXPANSION }, warnings };
}
