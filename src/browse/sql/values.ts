/** A result value as the API sends it. */
export type ApiValue = number | string | null | { $base64: true; encoded: string };

export const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/**
 * Converts a driver value: integers exact (numbers when safe, else decimal strings), BLOBs as
 * base64 objects, never `{}`.
 */
export function toApiValue(v: unknown): ApiValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString();
  if (typeof v === "number" || typeof v === "string") return v;
  if (v instanceof Uint8Array) return { $base64: true, encoded: base64(v) };
  if (v instanceof ArrayBuffer) return { $base64: true, encoded: base64(new Uint8Array(v)) };
  if (typeof v === "boolean") return v ? 1 : 0;
  return String(v);
}
