import type { Token } from "./sql_text.ts";

/**
 * Decisions about whether a statement may run. Read-only is held first by the engine (the file
 * is opened with `mode=ro`); these rules cover what that flag does not: functions libsql ships
 * that touch the file system or load code, ATTACH, VACUUM INTO, and connection state that would
 * leak between requests served by the same pooled connection.
 */

/** A refused statement: HTTP 403 with this message. */
export class RefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RefusedError";
  }
}

/**
 * Functions and table-valued functions that are never allowed, even with --write: file access
 * (readfile, writefile, fsdir), code loading, SQL run from inside a function (sha3_query), the
 * fts3 tokenizer pointer trick, cipher configuration and raw page access.
 */
export const DENIED_NAMES: ReadonlySet<string> = new Set([
  "readfile",
  "writefile",
  "fsdir",
  "load_extension",
  "sha3_query",
  "fts3_tokenizer",
  "sqlite3mc_config",
  "sqlite3mc_config_table",
  "sqlite3mc_codec_data",
  "sqlite_crypt",
  "sqlite_dbpage",
  "sqlite_attach",
  "sqlite_detach",
]);

/** Pragmas that take an argument and only read. */
const READ_PRAGMAS_WITH_ARG = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_list",
  "index_info",
  "index_xinfo",
  "foreign_key_list",
  "foreign_key_check",
  "integrity_check",
  "quick_check",
]);

/**
 * VDBE opcodes that change a database, its schema or the connection. Insert/Delete are not
 * listed: queries use them on ephemeral tables (recursive CTEs, DISTINCT); a real table needs an
 * OpenWrite cursor and a write Transaction, which are.
 */
const WRITE_OPCODES = new Set([
  "OpenWrite",
  "VUpdate",
  "VCreate",
  "VDestroy",
  "VBegin",
  "CreateBtree",
  "Destroy",
  "Clear",
  "Vacuum",
  "IncrVacuum",
  "SetCookie",
  "ParseSchema",
  "DropTable",
  "DropIndex",
  "DropTrigger",
  "JournalMode",
  "Savepoint",
  "AutoCommit",
]);

const TRANSACTION_WORDS = new Set(["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"]);

/** One row of `EXPLAIN`: opcode, p1, p2, p3, p4. */
export interface Op {
  opcode: string;
  p1: number;
  p2: number;
  p3: number;
  p4: string | null;
}

/** Checks the text of a statement; `extraDenied` holds schema objects that use denied names. */
export function checkTokens(
  tokens: Token[],
  write: boolean,
  extraDenied: ReadonlyMap<string, string> = new Map(),
): void {
  const head = tokens[0]?.kind === "word" ? tokens[0].value.toUpperCase() : "";
  if (head === "ATTACH" || head === "DETACH") {
    throw new RefusedError(`${head} is not allowed`);
  }
  if (TRANSACTION_WORDS.has(head)) {
    throw new RefusedError("transaction control is not allowed: each request runs on its own");
  }
  for (const t of tokens) {
    if (t.kind !== "word" && t.kind !== "ident") continue;
    const name = t.value.toLowerCase();
    if (DENIED_NAMES.has(name)) throw new RefusedError(`${name} is not allowed`);
    const why = extraDenied.get(name);
    if (why) throw new RefusedError(why);
  }
  if (!write && head === "PRAGMA") checkPragma(tokens);
}

function checkPragma(tokens: Token[]): void {
  // PRAGMA [schema.]name [= value | (arg)]
  let i = 1;
  if (tokens[i + 1]?.value === ".") i += 2;
  const name = (tokens[i]?.value ?? "").toLowerCase();
  const next = tokens[i + 1]?.value;
  if (next === "=") throw new RefusedError(`read-only: PRAGMA ${name} = ... is not allowed`);
  if (next === "(" && !READ_PRAGMAS_WITH_ARG.has(name)) {
    throw new RefusedError(`read-only: PRAGMA ${name}(...) is not allowed`);
  }
}

/**
 * Checks the compiled program. Views are expanded into it, so a view calling readfile() is
 * caught here even though its name does not appear in the text.
 */
export function checkProgram(ops: Op[], write: boolean, deniedTriggers: boolean): void {
  for (const op of ops) {
    if (op.opcode === "Function" || op.opcode === "PureFunc" || op.opcode === "AggStep") {
      const name = (op.p4 ?? "").replace(/\(.*$/, "").toLowerCase();
      if (DENIED_NAMES.has(name)) throw new RefusedError(`${name} is not allowed`);
    }
    if (op.opcode === "Vacuum" && op.p2 !== 0) {
      throw new RefusedError("VACUUM INTO is not allowed");
    }
    if (op.opcode === "Program" && deniedTriggers) {
      throw new RefusedError("a trigger on this table uses a function that is not allowed");
    }
    if (!write) {
      // Expire with P1=0 (every prepared statement) follows a change of connection settings;
      // P1=1 is only the pragma's own statement and is emitted by reading pragmas too.
      if (
        WRITE_OPCODES.has(op.opcode) || (op.opcode === "Transaction" && op.p2 !== 0) ||
        (op.opcode === "Expire" && op.p1 === 0)
      ) {
        throw new RefusedError(
          "read-only: this statement would write (writes need `courier browse --write` and a POST)",
        );
      }
    }
  }
}

/**
 * Views and triggers whose SQL names a denied function, directly or through another such view:
 * name → reason. Table-valued functions inside views compile to opaque virtual-table opcodes,
 * so they are caught by name here.
 */
export function taintedObjects(
  objects: { name: string; type: string; tokens: Token[] }[],
): Map<string, string> {
  const tainted = new Map<string, string>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const o of objects) {
      const key = o.name.toLowerCase();
      if (tainted.has(key)) continue;
      const hit = o.tokens.find((t) =>
        (t.kind === "word" || t.kind === "ident") &&
        (DENIED_NAMES.has(t.value.toLowerCase()) || tainted.has(t.value.toLowerCase()))
      );
      if (hit) {
        tainted.set(key, `${o.type} ${o.name} uses ${hit.value}, which is not allowed`);
        changed = true;
      }
    }
  }
  return tainted;
}
