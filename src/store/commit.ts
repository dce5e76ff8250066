import type { InStatement, ResultSet, SqlClient } from "./sql.ts";

/**
 * Commits statements as one transaction, or together with those of other callers waiting at
 * the same time (group commit): while one transaction is being written the next callers queue
 * up, and all of them share the next one. Each caller resolves only once its statements are
 * committed, so nothing is acknowledged before it is stored.
 */
export class GroupCommit {
  #queue: {
    statements: InStatement[];
    resolve: (results: ResultSet[]) => void;
    reject: (e: unknown) => void;
  }[] = [];
  #committing: Promise<void> | null = null;

  constructor(private readonly client: SqlClient) {}

  commit(statements: InStatement[]): Promise<ResultSet[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ statements, resolve, reject });
      this.#committing ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const group = this.#queue;
        this.#queue = [];
        try {
          const results = await this.client.batch(group.flatMap((g) => g.statements));
          let at = 0;
          for (const g of group) {
            g.resolve(results.slice(at, at + g.statements.length));
            at += g.statements.length;
          }
        } catch (error) {
          if (group.length === 1) {
            group[0].reject(error);
            continue;
          }
          // Each caller on its own, so a failure is charged to the statements that caused it.
          for (const g of group) {
            await this.client.batch(g.statements).then(g.resolve, g.reject);
          }
        }
      }
    } finally {
      this.#committing = null;
    }
  }
}
