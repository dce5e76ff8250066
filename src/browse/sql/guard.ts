import {
  ALLOWED_FUNCTIONS,
  DANGEROUS_NAMES,
  READ_PRAGMAS_NO_ARG,
  READ_PRAGMAS_WITH_ARG,
  WRITE_PRAGMAS,
} from "./allow.ts";
import type { Token } from "./sql_text.ts";

/**
 * Decisions about whether a statement may run. Read-only is held first by the engine (the file
 * is opened with `mode=ro`). The decisive checks read the prepared program: every function it
 * calls and every virtual table it opens must be on an allow-list. The checks on text are only
 * a first, cheap layer and give clearer messages; PRAGMAs are the exception, decided on their
 * tokens because a PRAGMA acts while it is prepared.
 */

/** A refused statement: HTTP 403 with this message. */
export class RefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RefusedError";
  }
}

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
  "VRename",
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

const WRITE_REFUSED =
  "read-only: this statement would write (writes need `courier browse --write` and a POST)";

function notAllowed(kind: string, name: string): RefusedError {
  const why = DANGEROUS_NAMES.has(name) ? " (it reaches files, code or raw pages)" : "";
  return new RefusedError(`${kind} ${name} is not allowed${why}`);
}

/**
 * The cheap first layer, on the statement's tokens: ATTACH, transaction control, and names
 * known to be dangerous. Passing it proves nothing; the program check decides.
 */
export function checkTokens(tokens: Token[], inner = 0): void {
  const head = tokens[inner]?.kind === "word" ? tokens[inner].value.toUpperCase() : "";
  if (head === "ATTACH" || head === "DETACH") {
    throw new RefusedError(`${head} is not allowed`);
  }
  if (TRANSACTION_WORDS.has(head)) {
    throw new RefusedError("transaction control is not allowed: each request runs on its own");
  }
  for (const t of tokens) {
    if (t.kind !== "word" && t.kind !== "ident") continue;
    const name = t.value.toLowerCase();
    if (DANGEROUS_NAMES.has(name)) throw notAllowed("function or table", name);
  }
}

/** A PRAGMA as the API runs it: a read through its table-valued function. */
export interface PragmaPlan {
  name: string;
  schema?: string;
  arg?: string | number;
  /** A --write PRAGMA that sets a header field: run as written (it has no read form). */
  writeText?: string;
}

function literal(t: Token | undefined, sign?: Token): string | number | undefined {
  if (!t) return undefined;
  const neg = sign?.value === "-";
  if (t.kind === "number") return Number((neg ? "-" : "") + t.value);
  if (sign) return undefined;
  if (t.kind === "word" || t.kind === "ident") return t.value;
  if (t.kind === "string" && t.value.startsWith("'")) {
    return t.value.slice(1, -1).replaceAll("''", "'");
  }
  return undefined;
}

/**
 * Decides a PRAGMA (tokens from `start`, after any EXPLAIN) before anything prepares it. Only the
 * forms `PRAGMA [schema.]name`, `... = value`, `... (value)` with one literal value are read;
 * anything else is refused.
 */
export function planPragma(tokens: Token[], start: number, write: boolean): PragmaPlan {
  let i = start + 1;
  let schema: string | undefined;
  if (tokens[i + 1]?.value === "." && tokens[i + 1]?.kind === "punct") {
    schema = tokens[i].value;
    i += 2;
  }
  const nameTok = tokens[i];
  if (!nameTok || (nameTok.kind !== "word" && nameTok.kind !== "ident")) {
    throw new RefusedError("this PRAGMA is not allowed");
  }
  const name = nameTok.value.toLowerCase();
  const rest = tokens.slice(i + 1);
  let arg: string | number | undefined;
  let hasArg = false;
  if (rest.length > 0) {
    hasArg = true;
    const sign = rest[1]?.value === "-" || rest[1]?.value === "+" ? rest[1] : undefined;
    const v = sign ? rest[2] : rest[1];
    const n = sign ? 3 : 2;
    const shape = rest[0].value === "="
      ? rest.length === n
      : rest[0].value === "(" && rest.length === n + 1 && rest[n].value === ")";
    arg = shape ? literal(v, sign) : undefined;
    if (arg === undefined) throw new RefusedError(`PRAGMA ${name}: this form is not allowed`);
  }
  if (write && hasArg && WRITE_PRAGMAS.has(name) && typeof arg === "number") {
    return { name, schema, writeText: `PRAGMA ${name} = ${Math.trunc(arg)}` };
  }
  if (READ_PRAGMAS_WITH_ARG.has(name)) return { name, schema, arg };
  if (READ_PRAGMAS_NO_ARG.has(name)) {
    if (hasArg) {
      throw new RefusedError(
        write && WRITE_PRAGMAS.has(name)
          ? `PRAGMA ${name} takes an integer`
          : `read-only: PRAGMA ${name} with a value is not allowed`,
      );
    }
    return { name, schema };
  }
  throw new RefusedError(
    `PRAGMA ${name} is not allowed (allowed: the read-only pragmas ${
      [...READ_PRAGMAS_NO_ARG, ...READ_PRAGMAS_WITH_ARG].sort().join(", ")
    })`,
  );
}

/** The function name in an EXPLAIN p4 such as `upper(1)` or `->>(2)`. */
function functionName(p4: string | null): string {
  const m = /^(.*)\(-?\d+\)$/s.exec(p4 ?? "");
  return (m ? m[1] : p4 ?? "").toLowerCase();
}

const FUNCTION_OP = /^(Function|PureFunc|Agg)/;

export interface ProgramRules {
  write: boolean;
  /** Virtual-table pointers (as EXPLAIN prints them) of allowed modules, at this moment. */
  vtabs: ReadonlyMap<string, string>;
}

/** Whether a program opens any virtual table (only then are the allowed pointers looked up). */
export function usesVtabs(ops: Op[]): boolean {
  return ops.some((op) => op.p4?.startsWith("vtab:"));
}

/** Whether a program writes (a write transaction or a write cursor). */
export function writes(ops: Op[]): boolean {
  return ops.some((op) =>
    WRITE_OPCODES.has(op.opcode) || (op.opcode === "Transaction" && op.p2 !== 0)
  );
}

/**
 * Checks a compiled program. EXPLAIN lists trigger sub-programs and expands views, so a
 * function or virtual table used there is checked as well.
 */
export function checkProgram(ops: Op[], rules: ProgramRules): void {
  for (const op of ops) {
    if (FUNCTION_OP.test(op.opcode) && op.p4 !== null) {
      const name = functionName(op.p4);
      if (!ALLOWED_FUNCTIONS.has(name)) throw notAllowed("function", name);
    }
    if (op.p4?.startsWith("vtab:") && !rules.vtabs.has(op.p4)) {
      throw new RefusedError(
        "this virtual table or table-valued function is not allowed (allowed: json_each, " +
          "json_tree, generate_series, dbstat, the read-only pragma_* functions, and " +
          "full-text and r-tree tables)",
      );
    }
    if (op.opcode === "Vacuum" && op.p2 !== 0) {
      throw new RefusedError("VACUUM INTO is not allowed");
    }
    if (op.opcode === "Savepoint" || op.opcode === "AutoCommit") {
      throw new RefusedError("transaction control is not allowed: each request runs on its own");
    }
    if (!rules.write) {
      // Expire with P1=0 (every prepared statement) follows a change of connection settings;
      // P1=1 is only the pragma's own statement and is emitted by reading pragmas too.
      if (
        WRITE_OPCODES.has(op.opcode) || (op.opcode === "Transaction" && op.p2 !== 0) ||
        (op.opcode === "Expire" && op.p1 === 0)
      ) {
        throw new RefusedError(WRITE_REFUSED);
      }
    }
  }
}
