import xxhash from "xxhash-wasm";

const { h64, h64Raw } = await xxhash();

/**
 * Identifies what parsing a body yields: the bytes, and the final URL (the base of relative
 * links) and content type (its charset) they are read with. XXH64 of the body, seeded with the
 * XXH64 of URL and type, prefixed with the algorithm so a stored hash of another kind never
 * matches.
 *
 * Not a cryptographic hash, on purpose: it only has to tell one version of a URL's body from
 * the next, and nobody gains by forging a match (whoever controls the body can simply leave it
 * unchanged). A steady-state run hashes every body it fetches, so speed decides: this is
 * several times faster than SHA-256 through node:crypto, and crypto.subtle hands each call to
 * a thread (figures in bench/NOTES.md).
 */
export function bodyHashOf(
  finalUrl: string,
  contentType: string | null,
  body: Uint8Array,
): string {
  const seed = h64(`${finalUrl}\n${contentType ?? ""}`);
  return `xxh64:${h64Raw(body, seed).toString(16).padStart(16, "0")}`;
}
