/**
 * The store's connection to a libSQL server (sqld, Turso) through `@libsql/client/web`, the
 * client's pure-JS build for http(s):// and ws(s):// URLs (`libsql://` means wss/https): no
 * native addon. It is imported when a remote database is opened, never for a local file, so
 * `once` and `forward` on a local file still start without it (sqlite.ts says why that counts).
 *
 * Each `execute` is one round trip, each `batch` one round trip holding a whole transaction;
 * the store is written to need few of either per run (docs/several-machines.md, "Costs").
 */
import { describeNetworkFailure, isUnreachable } from "../net/failure.ts";
import { race } from "../time/race.ts";
import type { InStatement, ResultSet, SqlClient } from "./sql.ts";

/** The server could not be reached or answered with something other than SQLite's words. */
export class RemoteError extends Error {
  override name = "RemoteError";
  /**
   * Why the server could not be reached at all ("connection refused"), in a user's words; null
   * when it answered. failure.ts names the server with it.
   */
  unreachable: string | null = null;
}

function unreachable(reason: string): RemoteError {
  const out = new RemoteError(`cannot reach the libSQL server: ${reason}`);
  out.unreachable = reason;
  return out;
}

/**
 * A client error as the store reports it: SQLite's own errors keep their code (failure.ts
 * turns it into words); a transport failure says so, in one line, without the auth token.
 */
function remoteError(error: unknown, secret: string | undefined): unknown {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown };
  const hide = (text: string) =>
    secret && secret.length >= 4 ? text.split(secret).join("[redacted]") : text;
  if (error instanceof RemoteError) return error;
  if (typeof e?.code === "string" && e.code.startsWith("SQLITE_")) {
    const out = new RemoteError(hide(String(e.message ?? e.code)));
    Object.assign(out, { code: e.code, extendedCode: e.code });
    return out;
  }
  if (isUnreachable(error)) return unreachable(hide(describeNetworkFailure(error).reason));
  const message = String(e?.message ?? error).split("\n")[0];
  const cause = e?.cause instanceof Error ? `: ${e.cause.message.split("\n")[0]}` : "";
  return new RemoteError(hide(`the server is unreachable or failed (${message}${cause})`));
}

/**
 * How long a request may go unanswered before the server counts as unreachable. Without it a
 * blackholed server (packets dropped, not refused) holds a lease renewal or a record for as
 * long as the kernel keeps the connection, minutes, with nothing logged.
 */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * `call`, or a failure once REQUEST_TIMEOUT_MS passed without its answer. A write may still land
 * later, which every write of the store allows (a late lease renewal is one the process no longer
 * trusts, a late record is the truth). A server that does not answer is one that cannot be
 * reached (failure.ts's words).
 */
function withDeadline<T>(call: Promise<T>): Promise<T> {
  const seconds = REQUEST_TIMEOUT_MS / 1000;
  return race(call, REQUEST_TIMEOUT_MS, () => unreachable(`no answer within ${seconds} s`));
}

/** Opens a client for `url`; nothing goes over the network until the first statement. */
export async function openRemote(url: string, authToken?: string): Promise<SqlClient> {
  const { createClient } = await import("@libsql/client/web");
  let client;
  try {
    client = createClient({ url, authToken, intMode: "number" });
  } catch (error) {
    throw remoteError(error, authToken);
  }
  const toLibsql = (s: InStatement) =>
    typeof s === "string" ? s : { sql: s.sql, args: (s.args ?? []) as never };
  const toResult = (rs: { rows: ArrayLike<unknown>[]; rowsAffected: number }): ResultSet => ({
    rows: rs.rows.map((row) => Array.from(row) as ResultSet["rows"][number]),
    rowsAffected: rs.rowsAffected,
  });
  return {
    async execute(statement) {
      try {
        return toResult(await withDeadline(client.execute(toLibsql(statement))));
      } catch (error) {
        throw remoteError(error, authToken);
      }
    },
    async batch(statements) {
      try {
        // "write": BEGIN IMMEDIATE ... COMMIT around them, sent as one pipeline.
        return (await withDeadline(client.batch(statements.map(toLibsql), "write")))
          .map(toResult);
      } catch (error) {
        throw remoteError(error, authToken);
      }
    },
    close() {
      client.close();
    },
  };
}
