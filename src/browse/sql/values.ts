/** A result value as the API sends it. */
export type ApiValue = number | string | null | { $base64: true; encoded: string };

export const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Converts a driver value: integers exact (numbers when safe, else decimal strings), BLOBs as
 * base64 objects, never `{}`.
 */
export function toApiValue(v: unknown): ApiValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString();
  if (typeof v === "number" || typeof v === "string") return v;
  if (v instanceof Uint8Array) return { $base64: true, encoded: v.toBase64() };
  if (v instanceof ArrayBuffer) return { $base64: true, encoded: new Uint8Array(v).toBase64() };
  if (typeof v === "boolean") return v ? 1 : 0;
  return String(v);
}
