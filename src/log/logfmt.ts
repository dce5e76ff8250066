/**
 * logfmt, as Loki's `| logfmt`, lnav and Go's logfmt read it: `key=value` pairs separated by
 * spaces, a value quoted (with backslash escapes) when it is empty or holds a space, `=`, `"`,
 * a backslash or a character that is not printable. Pure.
 */

/** A value as logfmt text: strings as they are, anything else as JSON. */
export function logfmtValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  // JSON's string escapes are the ones logfmt readers undo (\" \\ \n \t \uXXXX).
  // deno-lint-ignore no-control-regex -- control characters must be escaped
  return text === "" || /[\s"=\\\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(text)
    ? JSON.stringify(text)
    : text;
}

/** A key as logfmt allows one: no space, `=` or `"`; anything else becomes `_`. */
export function logfmtKey(key: string): string {
  // deno-lint-ignore no-control-regex -- control characters are not key characters
  const clean = key.replace(/[\s="\\\x00-\x1f\x7f]/g, "_");
  return clean === "" ? "_" : clean;
}

/** One logfmt line of the pairs in order; undefined values are left out. */
export function logfmtLine(pairs: readonly (readonly [string, unknown])[]): string {
  return pairs
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${logfmtKey(key)}=${logfmtValue(value)}`)
    .join(" ");
}
