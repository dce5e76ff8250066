import type { Db } from "./db.ts";
import { SqlTextError, type Token, tokenize, unlistableBlob } from "./sql_text.ts";

/**
 * Schema objects whose definition would put text that is not UTF-8 into an EXPLAIN listing: a
 * blob literal of such bytes (a view's `x'ff'`, a `DEFAULT (CAST(x'ff' AS TEXT))`), or such
 * text in the definition itself. The driver aborts the worker on such text, and the program
 * check must read the listing; statements that use these objects are refused instead (400).
 * Found by name in the statement, through views that use them, by tables their indexes and
 * triggers belong to.
 */
export class UnlistableObjects {
  #version: unknown = undefined;
  #names = new Map<string, string>();

  async names(db: Db): Promise<ReadonlyMap<string, string>> {
    const version = (await db.often("PRAGMA schema_version"))[0];
    if (version === this.#version) return this.#names;
    const rows = await db.all(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL " +
        "UNION ALL SELECT type, name, tbl_name, sql FROM sqlite_temp_schema WHERE sql IS NOT NULL",
    );
    const objects = rows.map(([type, name, table, sql]) => {
      let tokens: Token[] = [];
      try {
        tokens = tokenize(String(sql));
      } catch { /* unreadable SQL cannot compile either */ }
      return {
        type: String(type),
        name: String(name),
        table: String(table),
        sql: String(sql),
        tokens,
      };
    });
    const out = new Map<string, string>();
    const why = (o: { type: string; name: string }) =>
      `${o.type} ${o.name} holds text that is not UTF-8 in its definition, which the query ` +
      `check cannot read: statements using it are refused`;
    for (const o of objects) {
      const bad = o.sql.includes("\uFFFD") || o.name.includes("\uFFFD") ||
        o.tokens.some((t) => t.kind === "string" && unlistableBlob(t.value));
      if (!bad) continue;
      out.set(o.name.toLowerCase(), why(o));
      if (o.type === "index" || o.type === "trigger") out.set(o.table.toLowerCase(), why(o));
    }
    // Views that use a listed object are listed too, until nothing changes.
    let changed = out.size > 0;
    while (changed) {
      changed = false;
      for (const o of objects) {
        if (o.type !== "view" && o.type !== "trigger") continue;
        const key = (o.type === "view" ? o.name : o.table).toLowerCase();
        if (out.has(key)) continue;
        const hit = o.tokens.find((t) =>
          (t.kind === "word" || t.kind === "ident") && out.has(t.value.toLowerCase())
        );
        if (hit) {
          out.set(key, out.get(hit.value.toLowerCase())!);
          changed = true;
        }
      }
    }
    this.#names = out;
    this.#version = version;
    return out;
  }

  /** Throws for a statement that names a listed object. */
  async check(db: Db, tokens: Token[]): Promise<void> {
    // A remote server's answers come as JSON text, never through the driver's conversion.
    if (db.remote) return;
    const names = await this.names(db);
    if (names.size === 0) return;
    for (const t of tokens) {
      if (t.kind !== "word" && t.kind !== "ident") continue;
      const why = names.get(t.value.toLowerCase());
      if (why) throw new SqlTextError(why);
    }
  }
}
