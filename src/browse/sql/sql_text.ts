/**
 * A small SQLite tokenizer: enough to split statements, find the leading keywords and every
 * identifier a statement names, without being fooled by strings, quoted names or comments.
 */

export type TokenKind = "word" | "ident" | "string" | "number" | "punct" | "param";

export interface Token {
  kind: TokenKind;
  /** For words and quoted identifiers: the name, dequoted; otherwise the source text. */
  value: string;
  /** Offset of the token in the source. */
  start: number;
  end: number;
}

/** Thrown for text the tokenizer cannot read (an unterminated string or comment). */
export class SqlTextError extends Error {
  override name = "SqlTextError";
}

const WORD_START = /[A-Za-z_\u0080-\uFFFF]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uFFFF]/;

function readQuoted(sql: string, i: number, close: string, doubled: boolean): number {
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf(close, j);
    if (k < 0) throw new SqlTextError("unterminated quoted text in the query");
    if (doubled && sql[k + 1] === close) {
      j = k + 2;
      continue;
    }
    return k + 1;
  }
}

/**
 * The end of a named bind variable as SQLite reads it (sqlite3GetToken): name characters, `::`
 * inside the name, and the Tcl form `$name(...)` that runs to the next `)` unless whitespace
 * comes first. `$a(')` is one variable: reading the quote as a string start would hide the
 * rest of the statement from every check that reads text.
 */
function variableEnd(sql: string, i: number): number {
  let j = i + 1;
  let n = 0;
  while (j < sql.length) {
    const c = sql[j];
    if (WORD_PART.test(c)) {
      n++;
      j++;
    } else if (c === "(" && n > 0) {
      j++;
      while (j < sql.length && !SQL_SPACE.test(sql[j]) && sql[j] !== ")") j++;
      // Without its `)` SQLite reads an illegal token, which fails to prepare.
      return sql[j] === ")" ? j + 1 : j;
    } else if (c === ":" && sql[j + 1] === ":") {
      j += 2;
    } else break;
  }
  return j;
}

/** The characters SQLite's tokenizer skips as space. */
const SQL_SPACE = /[ \t\n\f\r]/;

/** Tokens of `sql`, comments and whitespace dropped. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (SQL_SPACE.test(ch)) {
      i++;
    } else if (ch === "-" && sql[i + 1] === "-") {
      const k = sql.indexOf("\n", i);
      i = k < 0 ? sql.length : k + 1;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const k = sql.indexOf("*/", i + 2);
      // SQLite accepts an unterminated block comment at the very end.
      i = k < 0 ? sql.length : k + 2;
    } else if (ch === "'") {
      const end = readQuoted(sql, i, "'", true);
      tokens.push({ kind: "string", value: sql.slice(i, end), start: i, end });
      i = end;
    } else if ((ch === "x" || ch === "X") && sql[i + 1] === "'") {
      const end = readQuoted(sql, i + 1, "'", false);
      tokens.push({ kind: "string", value: sql.slice(i, end), start: i, end });
      i = end;
    } else if (ch === '"' || ch === "`") {
      const end = readQuoted(sql, i, ch, true);
      const inner = sql.slice(i + 1, end - 1).split(ch + ch).join(ch);
      tokens.push({ kind: "ident", value: inner, start: i, end });
      i = end;
    } else if (ch === "[") {
      const end = readQuoted(sql, i, "]", false);
      tokens.push({ kind: "ident", value: sql.slice(i + 1, end - 1), start: i, end });
      i = end;
    } else if (WORD_START.test(ch)) {
      let j = i + 1;
      while (j < sql.length && WORD_PART.test(sql[j])) j++;
      tokens.push({ kind: "word", value: sql.slice(i, j), start: i, end: j });
      i = j;
    } else if (/[0-9.]/.test(ch) && (ch !== "." || /[0-9]/.test(sql[i + 1] ?? ""))) {
      let j = i + 1;
      while (j < sql.length && /[0-9A-Za-z_.]/.test(sql[j])) {
        if ((sql[j] === "e" || sql[j] === "E") && /[+-]/.test(sql[j + 1] ?? "")) j++;
        j++;
      }
      tokens.push({ kind: "number", value: sql.slice(i, j), start: i, end: j });
      i = j;
    } else if (ch === "?") {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j])) j++;
      tokens.push({ kind: "param", value: sql.slice(i, j), start: i, end: j });
      i = j;
    } else if (ch === ":" || ch === "@" || ch === "$" || ch === "#") {
      const end = variableEnd(sql, i);
      tokens.push({ kind: "param", value: sql.slice(i, end), start: i, end });
      i = end;
    } else {
      const two = sql.slice(i, i + 2);
      const len = ["<=", ">=", "<>", "!=", "==", "||", "<<", ">>", "->"].includes(two)
        ? (sql.slice(i, i + 3) === "->>" ? 3 : 2)
        : 1;
      tokens.push({ kind: "punct", value: sql.slice(i, i + len), start: i, end: i + len });
      i += len;
    }
  }
  return tokens;
}

function isWord(t: Token | undefined, ...words: string[]): boolean {
  return t !== undefined && t.kind === "word" && words.includes(t.value.toUpperCase());
}

export interface SplitResult {
  /** The one statement, without its trailing semicolon. */
  statement: string;
  tokens: Token[];
}

/**
 * The single statement in `sql`. Throws when there is none or more than one: SQLite would
 * silently ignore everything after the first, and a second statement must not be dropped.
 */
export function singleStatement(sql: string): SplitResult {
  const tokens = tokenize(sql);
  let i = 0;
  while (i < tokens.length && tokens[i].value === ";") i++;
  if (i === tokens.length) throw new SqlTextError("the query is empty");
  const first = i;
  // A trigger body holds semicolons between BEGIN and its END.
  const k = isWord(tokens[i + 1], "TEMP", "TEMPORARY") ? i + 2 : i + 1;
  const trigger = isWord(tokens[first], "CREATE") && isWord(tokens[k], "TRIGGER");
  let depth = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    if (trigger && isWord(t, "BEGIN", "CASE")) depth++;
    else if (trigger && isWord(t, "END") && depth > 0) depth--;
    else if (t.value === ";" && t.kind === "punct" && depth === 0) break;
  }
  const body = tokens.slice(first, i);
  const rest = tokens.slice(i).filter((t) => !(t.kind === "punct" && t.value === ";"));
  if (rest.length > 0) {
    throw new SqlTextError("only one statement per request is allowed");
  }
  const last = body[body.length - 1];
  return { statement: sql.slice(body[0].start, last.end), tokens: body };
}

/** How a statement is wrapped in EXPLAIN: not, `EXPLAIN`, or `EXPLAIN QUERY PLAN`. */
export type ExplainMode = "none" | "explain" | "plan";

/** The EXPLAIN wrapper of a statement and the index of its first inner token. */
export function explainPrefix(tokens: Token[]): { mode: ExplainMode; inner: number } {
  if (!isWord(tokens[0], "EXPLAIN")) return { mode: "none", inner: 0 };
  if (isWord(tokens[1], "QUERY") && isWord(tokens[2], "PLAN")) return { mode: "plan", inner: 3 };
  return { mode: "explain", inner: 1 };
}

/**
 * Whether `sql` is a query: its first statement starts (after an EXPLAIN or EXPLAIN QUERY PLAN)
 * with SELECT, WITH or VALUES; only those share a request's read transaction (a PRAGMA may
 * refuse to run inside one). Anything the tokenizer cannot read is answered no.
 */
export function compilesQueryOnly(sql: string): boolean {
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch {
    return false;
  }
  return startsQuery(tokens[explainPrefix(tokens).inner]);
}

/** Whether a statement that starts with `first` is a query: SELECT, WITH or VALUES. */
export function startsQuery(first: Token | undefined): boolean {
  return isWord(first, "SELECT", "WITH", "VALUES");
}
