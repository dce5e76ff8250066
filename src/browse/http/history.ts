/** One successful /query or /explain call. */
export interface HistoryEntry {
  query: string;
  timestamp: string;
  duration_ms: number;
  rows: number;
}

interface Kept {
  query: string;
  at: Date;
  durationMs: number;
  rows: number;
}

/**
 * The last `limit` successful calls, oldest first. Added to on every query, read rarely: a
 * ring (no shifting of 500 entries per call) whose times are formatted only when listed.
 */
export class History {
  #ring: Kept[] = [];
  #next = 0;

  constructor(private limit = 500, private now: () => Date = () => new Date()) {}

  add(query: string, durationMs: number, rows: number): void {
    const kept = { query, at: this.now(), durationMs, rows };
    if (this.#ring.length < this.limit) this.#ring.push(kept);
    else this.#ring[this.#next] = kept;
    this.#next = (this.#next + 1) % this.limit;
  }

  list(): HistoryEntry[] {
    const full = this.#ring.length === this.limit;
    const ordered = full
      ? [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)]
      : this.#ring;
    return ordered.map((k) => ({
      query: k.query,
      timestamp: k.at.toISOString(),
      duration_ms: Math.round(k.durationMs * 1000) / 1000,
      rows: k.rows,
    }));
  }
}
