/**
 * Bind values as URL text: a JSON array whose integers are exact literals, which the API's
 * parseParams binds as INTEGER (`{"$int"}` values, beyond 2^53 too) and whose BLOBs are
 * `{"$base64"}` objects. Row keys and the parameters of "Show SQL" travel this way.
 */
export function paramsText(values: readonly unknown[]): string {
  return "[" + values.map((v) => {
    if (v !== null && typeof v === "object" && "$int" in v) {
      return String((v as { $int: string }).$int);
    }
    if (typeof v === "bigint") return v.toString();
    return JSON.stringify(v);
  }).join(",") + "]";
}
