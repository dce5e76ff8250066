/**
 * What a failed SQLite call means to a user, in words: "disk full", "the file is corrupt".
 * The store's connection (sqlite.ts) gives SQLite's result code with its errors (`code`,
 * `extendedCode`: "SQLITE_FULL", "SQLITE_IOERR_WRITE"), as libSQL does, whose messages also
 * start with it ("SQLITE_FULL: database or disk is full"); the store puts the step and the file
 * in front (db.ts, StoreError).
 */
import { cannotReach } from "../net/failure.ts";

interface SqliteLike {
  code?: unknown;
  extendedCode?: unknown;
  message?: unknown;
}

/** SQLite's result code of an error ("SQLITE_FULL"), or null for any other error. */
export function sqliteCode(error: unknown): string | null {
  const code = (error as SqliteLike | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : null;
}

/**
 * SQLite's own words without the code in front and on one line ("database disk image is
 * malformed").
 */
function sqliteWords(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0].replace(/^SQLITE_[A-Z_]+: /, "");
}

/**
 * The cause of a failed database call, for the end of "cannot <step> in <file>: ...".
 * SQLite reports a write that found no room (ENOSPC) as SQLITE_FULL. A write past a file size
 * limit (EFBIG, RLIMIT_FSIZE) or any other failed write is an SQLITE_IOERR, which does not say
 * which: its extended code names the call that failed (WRITE, FSYNC, TRUNCATE...).
 */
export function describeFailure(error: unknown): string {
  const code = sqliteCode(error);
  const extended = (error as SqliteLike | null)?.extendedCode;
  switch (code) {
    case "SQLITE_FULL":
      return "disk full";
    case "SQLITE_IOERR":
      return `disk I/O error (${typeof extended === "string" ? extended : code}; ` +
        "is the disk full or a file size limit reached?)";
    case "SQLITE_CORRUPT":
      return `the file is corrupt (${sqliteWords(error)})`;
    case "SQLITE_NOTADB":
      return "the file is not an SQLite database";
    case "SQLITE_READONLY":
      return `the file is read-only (${sqliteWords(error)})`;
    case "SQLITE_BUSY":
      return `the database is locked by another process (${sqliteWords(error)})`;
    default:
      return sqliteWords(error);
  }
}

/**
 * The database could not be opened, migrated, read or written. The message names the step and
 * the file, and says why in words: `cannot record a sent message in <file>: disk full`.
 */
export class StoreError extends Error {
  override name = "StoreError";
  /** SQLite's result code when SQLite failed ("SQLITE_FULL"), else null. */
  readonly code: string | null;

  /** 1, a failed run; 2 for what the config or the host must fix (a directory not creatable). */
  constructor(message: string, code: string | null = null, readonly exitCode: 1 | 2 = 1) {
    super(message);
    this.code = code;
  }
}

/** A failure of `step` ("record a sent message") on the database at `path`. */
export function storeFailure(step: string, path: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError(`cannot ${step} in ${path}: ${describeFailure(error)}`, sqliteCode(error));
}

/**
 * "cannot reach the libSQL server at URL: connection refused" for a server that could not be
 * reached at all (remote.ts), whatever the step: the server is what to look at. Else null.
 */
export function unreachableServer(shown: string, error: unknown): string | null {
  const reason = (error as { unreachable?: unknown } | null)?.unreachable;
  return typeof reason === "string" ? cannotReach(shown, reason) : null;
}
