/**
 * Statements a connection keeps prepared for reuse, by key, bounded by count and by size: a
 * kept statement's program lives in the worker's SQLite heap and grows with its text, and 64
 * kept programs of long queries filled that heap (another client's query then failed "out of
 * memory"). One whose size is past `maxSize` is not kept at all, so the kept ones hold at most
 * `maxCount` × `maxSize`; the oldest goes when there are more than `maxCount`.
 */
export class KeptStatements<T> {
  readonly #entries = new Map<string, { entry: T; size: number }>();
  #size = 0;

  constructor(readonly maxCount: number, readonly maxSize: number) {}

  /** Takes the entry under `key` out (keep() puts it back), if there is one. */
  take(key: string): T | undefined {
    const found = this.#entries.get(key);
    if (found === undefined) return undefined;
    this.#entries.delete(key);
    this.#size -= found.size;
    return found.entry;
  }

  /** Keeps `entry` of `size` (the caller's measure) under `key`; false when it is too large. */
  keep(key: string, entry: T, size: number): boolean {
    if (size > this.maxSize) return false;
    this.take(key);
    this.#entries.set(key, { entry, size });
    this.#size += size;
    while (this.#entries.size > this.maxCount) this.take(this.#entries.keys().next().value!);
    return true;
  }

  /** How many are kept. */
  get count(): number {
    return this.#entries.size;
  }

  /** Their sizes together. */
  get size(): number {
    return this.#size;
  }
}
