/** One successful /query or /explain call. */
export interface HistoryEntry {
  query: string;
  timestamp: string;
  duration_ms: number;
  rows: number;
}

/** The last `limit` successful calls, oldest first. */
export class History {
  #entries: HistoryEntry[] = [];

  constructor(private limit = 500, private now: () => Date = () => new Date()) {}

  add(query: string, durationMs: number, rows: number): void {
    this.#entries.push({
      query,
      timestamp: this.now().toISOString(),
      duration_ms: Math.round(durationMs * 1000) / 1000,
      rows,
    });
    if (this.#entries.length > this.limit) {
      this.#entries.splice(0, this.#entries.length - this.limit);
    }
  }

  list(): HistoryEntry[] {
    return [...this.#entries];
  }
}
