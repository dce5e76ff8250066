/**
 * SQLite's result codes named as libSQL names them (`SQLITE_BUSY`, `SQLITE_IOERR_WRITE`): the
 * state (src/store) and the browser (src/browse) both read node:sqlite's numbers through here.
 */

/** SQLite's primary result codes (sqlite3.h), by number. */
const PRIMARY: Record<number, string> = {
  1: "ERROR",
  2: "INTERNAL",
  3: "PERM",
  4: "ABORT",
  5: "BUSY",
  6: "LOCKED",
  7: "NOMEM",
  8: "READONLY",
  9: "INTERRUPT",
  10: "IOERR",
  11: "CORRUPT",
  12: "NOTFOUND",
  13: "FULL",
  14: "CANTOPEN",
  15: "PROTOCOL",
  16: "EMPTY",
  17: "SCHEMA",
  18: "TOOBIG",
  19: "CONSTRAINT",
  20: "MISMATCH",
  21: "MISUSE",
  22: "NOLFS",
  23: "AUTH",
  24: "FORMAT",
  25: "RANGE",
  26: "NOTADB",
};

/** A result code's primary part named as libSQL names it (`SQLITE_BUSY`); undefined if unknown. */
export function primaryCodeName(errcode: number): string | undefined {
  return extendedCodeName(errcode & 0xff);
}

/** The extended codes of SQLITE_IOERR (sqlite3.h), which name the call that failed. */
const IOERR: Record<number, string> = {
  1: "READ",
  2: "SHORT_READ",
  3: "WRITE",
  4: "FSYNC",
  5: "DIR_FSYNC",
  6: "TRUNCATE",
  7: "FSTAT",
  8: "UNLOCK",
  9: "RDLOCK",
  10: "DELETE",
  12: "NOMEM",
  13: "ACCESS",
  14: "CHECKRESERVEDLOCK",
  15: "LOCK",
  16: "CLOSE",
  18: "SHMOPEN",
  19: "SHMSIZE",
  21: "SHMMAP",
  22: "SEEK",
  24: "MMAP",
};

/** The extended code's name where it names the failed call (`SQLITE_IOERR_WRITE`), else the
 * primary's when there is no extended part; undefined otherwise. */
export function extendedCodeName(errcode: number): string | undefined {
  const primary = PRIMARY[errcode & 0xff];
  const sub = errcode >> 8;
  if (sub === 0) return primary && `SQLITE_${primary}`;
  return primary === "IOERR" && IOERR[sub] ? `SQLITE_IOERR_${IOERR[sub]}` : undefined;
}
