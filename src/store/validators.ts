import type { InStatement, SqlClient } from "./sql.ts";

/** HTTP validators of one feed URL, kept for conditional GET. */
export interface StoredValidators {
  etag: string | null;
  lastModified: string | null;
  /** Hash of the body (with final URL and content type) the last successful run read. */
  bodyHash: string | null;
}

/** Whether there is anything to keep for a URL. */
const meaningful = (v: StoredValidators) =>
  v.etag !== null || v.lastModified !== null || v.bodyHash !== null;

const NO_VALIDATORS: ReadonlyMap<string, StoredValidators> = new Map();

/**
 * The `validators` table: each feed URL's validators from the feed's last fully successful
 * run. Read once, then served from memory and kept current by the writes this process makes
 * (the lock makes it the only writer).
 */
export class ValidatorsTable {
  #all: Promise<Map<string, Map<string, StoredValidators>>> | null = null;

  constructor(private readonly client: SqlClient) {}

  /**
   * The stored validators of the feed's URLs (URLs without any are absent). All feeds' are
   * loaded by the first call, in one query. The map is shared, not copied (a copy per feed per
   * run showed in profiles): `replaced` swaps a feed's map, never changes one handed out.
   */
  async get(feed: string): Promise<ReadonlyMap<string, StoredValidators>> {
    this.#all ??= this.#load();
    return (await this.#all).get(feed) ?? NO_VALIDATORS;
  }

  async #load(): Promise<Map<string, Map<string, StoredValidators>>> {
    const rs = await this.client.execute(
      "SELECT feed, url, etag, last_modified, body_hash FROM validators",
    );
    const all = new Map<string, Map<string, StoredValidators>>();
    for (const row of rs.rows) {
      const feed = String(row[0]);
      if (!all.has(feed)) all.set(feed, new Map());
      all.get(feed)!.set(String(row[1]), {
        etag: row[2] === null ? null : String(row[2]),
        lastModified: row[3] === null ? null : String(row[3]),
        bodyHash: row[4] === null ? null : String(row[4]),
      });
    }
    return all;
  }

  /** The statements that replace the feed's validators (to commit with its run's row). */
  replace(feed: string, validators: Map<string, StoredValidators>, at: Date): InStatement[] {
    const statements: InStatement[] = [
      { sql: "DELETE FROM validators WHERE feed = ?", args: [feed] },
    ];
    for (const [url, v] of validators) {
      if (!meaningful(v)) continue;
      statements.push({
        sql: `INSERT INTO validators (feed, url, etag, last_modified, body_hash, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)`,
        args: [feed, url, v.etag, v.lastModified, v.bodyHash, at.toISOString()],
      });
    }
    return statements;
  }

  /** Keeps the memory current once the statements of `replace` are committed. */
  async replaced(feed: string, validators: Map<string, StoredValidators>): Promise<void> {
    if (!this.#all) return;
    const kept = new Map([...validators].filter(([, v]) => meaningful(v)));
    (await this.#all).set(feed, kept);
  }

  /** Forgets feeds whose rows were deleted (retention dropped them). */
  async forget(feeds: readonly string[]): Promise<void> {
    if (!this.#all) return;
    const all = await this.#all;
    for (const feed of feeds) all.delete(feed);
  }
}
