/**
 * A config's plain values (as a YAML reader built them) checked against the field tables and
 * turned into settings, or null on any problem at all: read_valid.ts leaves every problem to
 * read_located.ts, which says file:line:col.
 */
import { effectiveSettings } from "./effective.ts";
import { FEED_FIELDS, type Field, TOP_FIELDS } from "./fields.ts";
import type { Settings } from "./types.ts";
import { stateKeysProblem } from "./state_keys.ts";
import type { RawConfig } from "./validate.ts";

/** The settings of a valid config's values, or null when the located reader must decide. */
export function checkedSettings(doc: unknown, file: string, cwd: string): Settings | null {
  const top = fieldsOf(doc, TOP);
  if (top === null) return null;
  if (top.refs !== undefined && !isMapping(top.refs)) return null;
  // Both token keys at once is a problem the located reader places.
  if (top.messenger_auth_token !== undefined && top.messenger_auth_token_file !== undefined) {
    return null;
  }
  if (stateKeysProblem(top) !== null) return null;
  delete top.refs;
  const feeds = top.feeds;
  if (!Array.isArray(feeds) || feeds.length === 0) return null;
  const names = new Set<string>();
  const checked: Record<string, unknown>[] = [];
  for (const item of feeds) {
    const feed = fieldsOf(item, FEED);
    if (feed === null || names.has(feed.name as string)) return null;
    names.add(feed.name as string);
    checked.push(feed);
  }
  top.feeds = checked;
  return effectiveSettings(top as unknown as RawConfig, file, cwd);
}

/** A field table and how many of its fields are required, counted once, not per mapping. */
interface Table {
  fields: Record<string, Field>;
  required: number;
}

const table = (fields: Record<string, Field>): Table => ({
  fields,
  required: Object.values(fields).filter((field) => field.required).length,
});

const TOP = table(TOP_FIELDS);
const FEED = table(FEED_FIELDS);
/** The tables of nested mappings (`filter`), made when a config first has one. */
const NESTED = new WeakMap<Record<string, Field>, Table>();

function nested(fields: Record<string, Field>): Table {
  let found = NESTED.get(fields);
  if (found === undefined) NESTED.set(fields, found = table(fields));
  return found;
}

/**
 * A mapping's values checked against a field table, or null on any problem: a key that is not
 * a known field, a missing required key, a value its check refuses. `feeds` and `refs`, which
 * have no check, are returned as they are for the caller.
 */
function fieldsOf(node: unknown, { fields, required }: Table): Record<string, unknown> | null {
  if (!isMapping(node)) return null;
  const out: Record<string, unknown> = {};
  // A mapping's keys are distinct: all required fields are there when as many were met.
  let met = 0;
  for (const [key, value] of Object.entries(node)) {
    if (!Object.hasOwn(fields, key)) return null;
    const field = fields[key];
    if (field.required) met++;
    if (field.fields) {
      const inner = fieldsOf(value, nested(field.fields));
      if (inner === null) return null;
      out[key] = inner;
      continue;
    }
    if (field.each && Array.isArray(value)) {
      if (value.length === 0 || value.some((item) => field.each!(item) !== null)) return null;
    } else if (field.check || field.each) {
      if ((field.check ?? field.each)!(value) !== null) return null;
    }
    out[key] = value;
  }
  return met === required ? out : null;
}

/** A YAML mapping as the readers build it: a plain object. */
function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
