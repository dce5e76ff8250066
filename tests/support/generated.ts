/**
 * Generated inputs for differential tests: deterministic, so a failure reproduces from its seed.
 */

/** mulberry32: a small PRNG of [0, 1) from a 32-bit seed. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` texts, each 1 to `most` of `pieces` drawn at random and joined. */
export function* joinedPieces(
  pieces: readonly string[],
  seed: number,
  count: number,
  most: number,
): Generator<string> {
  const next = random(seed);
  for (let n = 0; n < count; n++) {
    const length = 1 + Math.floor(next() * most);
    let text = "";
    for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)];
    yield text;
  }
}
