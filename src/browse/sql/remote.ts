import { createClient, type InArgs, type Transaction } from "@libsql/client/web";
import {
  type Db,
  DbError,
  type Params,
  RefusedError,
  TimeLimitError,
  TooLargeError,
} from "./db.ts";
import { openRuleCheck } from "./local.ts";
import { cannotReach, describeNetworkFailure, isUnreachable } from "../../net/failure.ts";
import { redactUrl } from "../../secrets/secret.ts";
import { race } from "../../time/race.ts";

/**
 * A remote libSQL server (sqld, Turso) through @libsql/client. The server runs the SQL, on its
 * own files with its own build; what a statement may do is decided here first, by the same
 * rules as a local file's: the remote schema is copied into an in-memory database with the same
 * defences and authorizer (local.ts, openRuleCheck), where the statement is prepared, never run,
 * before it is sent. Refused there, it is never sent, with the same 403 and message.
 * Then it runs in a transaction of its own: a read transaction (`BEGIN TRANSACTION READONLY`,
 * which sqld and Turso refuse to write in) that is rolled back, never committed, unless it is a
 * --write POST. A read-only token (Turso: `turso db tokens create --read-only`) makes the server
 * refuse writes itself: use one for a browser left running.
 */

/**
 * The most bytes of one answer from the remote server: the client reads an answer whole and
 * decodes it into objects several times its size, so a huge one ended the worker.
 */
export const REMOTE_ANSWER_BYTES = 64 * 1024 * 1024;
/** The most columns a remote answer may have: SQLite's own default limit (SQLITE_MAX_COLUMN). */
export const REMOTE_MAX_COLUMNS = 2000;

class RemoteTooLarge extends Error {}

/**
 * The URL the client is given: a WebSocket URL is spoken over HTTP at the same address (sqld and
 * Turso serve Hrana over both). Deno's WebSocket hands a message over only whole, and whole at
 * any size when the server sends it in fragments (a 100 MiB answer was taken), so an answer
 * over a WebSocket could not be held to REMOTE_ANSWER_BYTES; over HTTP every transport of the
 * URL gets the same caps.
 */
export function overHttp(url: string): string {
  return url.replace(/^ws(s?):/i, "http$1:");
}

/** fetch, with every answer's body read whole under REMOTE_ANSWER_BYTES. */
async function cappedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (!res.body) return res;
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > REMOTE_ANSWER_BYTES) {
    await res.body.cancel();
    throw new RemoteTooLarge();
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of res.body) {
    size += part.length;
    if (size > REMOTE_ANSWER_BYTES) throw new RemoteTooLarge();
    parts.push(part);
  }
  return new Response(new Blob(parts as BlobPart[]), { status: res.status, headers: res.headers });
}

/** DbError's code for a server that could not be reached: 503, not the query's 400. */
export const UNREACHABLE = "UNREACHABLE";

function wrap(error: unknown, shown: string): Error {
  if (
    error instanceof DbError || error instanceof RefusedError ||
    error instanceof TimeLimitError || error instanceof TooLargeError
  ) return error;
  const e = error as { message?: string; code?: string; cause?: unknown };
  // fetch's or the WebSocket's own failure: the server, not the query, is what is wrong.
  if (isUnreachable(error)) {
    return new DbError(cannotReach(shown, describeNetworkFailure(error).reason), UNREACHABLE);
  }
  if (error instanceof RemoteTooLarge || e?.cause instanceof RemoteTooLarge) {
    return new TooLargeError(
      `the remote server's answer is larger than ${
        REMOTE_ANSWER_BYTES / 1024 / 1024
      } MiB: select fewer rows or columns`,
    );
  }
  return new DbError(e?.message ?? String(error), e?.code ?? "");
}

/**
 * Runs `SELECT 1` on the server: browse's check at start, so a server that cannot be reached
 * is one line then, not every call's error later. Rejects with a DbError.
 */
export async function checkRemote(url: string, authToken: string | undefined): Promise<void> {
  const client = createClient({ url: overHttp(url), authToken, intMode: "bigint" });
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
  const client = createClient({
    url: overHttp(url),
    authToken,
    intMode: "bigint",
    fetch: cappedFetch,
  });
  const shown = shownUrl(url);
  const rules = openRuleCheck();
  let schemaVersion: unknown = undefined;
  /** When the current request's time is up (performance.now()), and its limit for messages. */
  let until = Infinity;
  let limitMs = 0;
  const toArgs = (p: Params) => (p ?? []) as InArgs;

  /**
   * `step` on `tx`, stopped at the request's time limit: the transaction is closed then (the
   * client sends the server its end once the statement in flight comes back, and the server
   * rolls it back), so nothing is left open on the server and the worker lives on.
   */
  const within = <T>(tx: Transaction, step: Promise<T>): Promise<T> => {
    const left = until - performance.now();
    if (left === Infinity) return step;
    return race(step, Math.max(0, left), () => {
      tx.close();
      return new TimeLimitError(limitMs);
    });
  };

  /** Brings the copy of the schema up to the server's, within `tx`. */
  const follow = async (tx: Transaction) => {
    const v = (await within(tx, tx.execute("PRAGMA schema_version"))).rows[0]?.[0];
    if (v === schemaVersion) return;
    const rs = await within(
      tx,
      tx.execute("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid"),
    );
    rules.load(rs.rows.map((r) => String(r[0])));
    schemaVersion = v;
  };

  const run: Db["run"] = async (sql, params, options, onColumns, onRow) => {
    const writing = write && options.write;
    let columns: string[];
    let rows: unknown[][];
    let counts: { changes?: number; lastInsertRowid?: unknown } = {};
    try {
      const tx = await client.transaction(writing ? "write" : "read");
      try {
        await follow(tx);
        rules.check(sql, writing);
        const rs = await within(tx, tx.execute({ sql, args: toArgs(params) }));
        if (rs.columns.length > REMOTE_MAX_COLUMNS) {
          throw new TooLargeError(
            `the remote server answered with ${rs.columns.length} columns, more than ${REMOTE_MAX_COLUMNS}`,
          );
        }
        if (writing) await within(tx, tx.commit());
        else await within(tx, tx.rollback());
        columns = rs.columns;
        rows = rs.rows as unknown as unknown[][];
        if (columns.length === 0) {
          counts = { changes: rs.rowsAffected, lastInsertRowid: rs.lastInsertRowid };
        }
      } catch (error) {
        // Ended on the server before the answer goes out: a stream left to close by itself was
        // still open when the process ended (a server then keeps its lock until it expires).
        // One stopped at the time limit is closed already; its end goes out when it can.
        if (!tx.closed) await tx.rollback().catch(() => {});
        throw error;
      } finally {
        if (!tx.closed) tx.close();
      }
    } catch (error) {
      throw wrap(error, shown);
    }
    // The transaction has ended: a download that stalls from here holds nothing on the server.
    onColumns(columns);
    for (const r of rows) if (!onRow(Array.from(r as ArrayLike<unknown>))) break;
    return counts;
  };
  return {
    async all(sql, params = []) {
      const rows: unknown[][] = [];
      await run(sql, params, { write: false }, () => {}, (r) => rows.push(r) > 0);
      return rows;
    },
    run,
    timeLimit(ms, limit) {
      until = performance.now() + ms;
      limitMs = limit;
    },
    inTransaction: () => false,
    close() {
      rules.close();
      client.close();
    },
  };
}
