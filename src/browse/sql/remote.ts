import { createClient, type InArgs } from "@libsql/client/web";
import { describeNetworkFailure, isUnreachable } from "../../net/failure.ts";
import { redactUrl } from "../../secrets/secret.ts";
import { type Db, DbError, type Params, RefusedError } from "./db.ts";
import { pragmaRefusal, WRITE_REFUSED } from "./rules.ts";
import { explainPrefix, singleStatement, type Token } from "./sql_text.ts";

/**
 * A remote libSQL server (sqld, Turso) through @libsql/client. The server runs the SQL, on its
 * own files with its own build, so no local file is at stake; read-only is held in two ways:
 * - a statement is sent only when it can only read, by its leading keywords: SELECT, VALUES,
 *   WITH (with no INSERT, UPDATE, DELETE or REPLACE at its top level), EXPLAIN of those, or a
 *   PRAGMA that reads, by the same allow-list as a local file's (rules.ts);
 * - it runs in a read transaction (`BEGIN TRANSACTION READONLY`, which sqld and Turso refuse
 *   to write in) that is rolled back, never committed, so a write the keywords miss is not
 *   kept on a server that does not know READONLY either.
 * A read-only token (Turso: `turso db tokens create --read-only`) makes the server refuse
 * writes itself: use one for a browser left running.
 */

function isWord(t: Token | undefined, ...words: string[]): boolean {
  return t !== undefined && t.kind === "word" && words.includes(t.value.toUpperCase());
}

/** Why a statement cannot be sent to a read-only remote database, or null when it only reads. */
export function remoteWriteProblem(sql: string): string | null {
  const { tokens } = singleStatement(sql);
  const body = tokens.slice(explainPrefix(tokens).inner);
  const head = body[0];
  if (isWord(head, "SELECT", "VALUES")) return null;
  if (isWord(head, "PRAGMA")) {
    // PRAGMA [schema.]name [= value | (value)]: the same allow-list as a local file's.
    const dotted = body[2]?.kind === "punct" && body[2].value === ".";
    const name = (dotted ? body[3] : body[1])?.value.toLowerCase() ?? "";
    const rest = body.slice(dotted ? 4 : 2);
    return pragmaRefusal(name, rest.length > 0 ? "value" : null, false);
  }
  if (isWord(head, "WITH")) {
    let depth = 0;
    for (const t of body) {
      if (t.kind === "punct" && t.value === "(") depth++;
      else if (t.kind === "punct" && t.value === ")") depth--;
      else if (depth === 0 && isWord(t, "INSERT", "UPDATE", "DELETE", "REPLACE")) {
        return WRITE_REFUSED;
      }
    }
    return null;
  }
  return WRITE_REFUSED;
}

/** DbError's code for a server that could not be reached: 503, not the query's 400. */
export const UNREACHABLE = "UNREACHABLE";

function wrap(error: unknown, shown: string): DbError {
  const e = error as { message?: string; code?: string };
  // fetch's or the WebSocket's own failure: the server, not the query, is what is wrong.
  if (isUnreachable(error)) {
    const reason = describeNetworkFailure(error).reason;
    return new DbError(`cannot reach the libSQL server at ${shown}: ${reason}`, UNREACHABLE);
  }
  return new DbError(e?.message ?? String(error), e?.code ?? "");
}

/**
 * Runs `SELECT 1` on the server: browse's check at start, so a server that cannot be reached
 * is one line then, not every call's error later. Rejects with a DbError.
 */
export async function checkRemote(url: string, authToken: string | undefined): Promise<void> {
  const client = createClient({ url, authToken, intMode: "bigint" });
  try {
    await client.execute("SELECT 1");
  } catch (error) {
    throw wrap(error, shownUrl(url));
  } finally {
    client.close();
  }
}

/** The server's URL as messages show it: no credentials, no query. */
function shownUrl(url: string): string {
  return redactUrl(url).replace(/[?#].*$/, "");
}

export function openRemote(url: string, authToken: string | undefined, write: boolean): Db {
  const client = createClient({ url, authToken, intMode: "bigint" });
  const shown = shownUrl(url);
  const toArgs = (p: Params) => (p ?? []) as InArgs;
  const run: Db["run"] = async (sql, params, options, onColumns, onRow) => {
    const writing = write && options.write;
    if (!writing) {
      const problem = remoteWriteProblem(sql);
      if (problem !== null) throw new RefusedError(problem);
    }
    try {
      const tx = await client.transaction(writing ? "write" : "read");
      try {
        const rs = await tx.execute({ sql, args: toArgs(params) });
        onColumns(rs.columns);
        for (const r of rs.rows) if (!onRow(Array.from(r))) break;
        if (writing) await tx.commit();
        else await tx.rollback();
        return rs.columns.length === 0
          ? { changes: rs.rowsAffected, lastInsertRowid: rs.lastInsertRowid }
          : {};
      } finally {
        if (!tx.closed) tx.close();
      }
    } catch (error) {
      throw wrap(error, shown);
    }
  };
  return {
    async all(sql, params = []) {
      const rows: unknown[][] = [];
      await run(sql, params, { write: false }, () => {}, (r) => rows.push(r) > 0);
      return rows;
    },
    run,
    inTransaction: () => false,
    close() {
      client.close();
    },
  };
}
