/**
 * SQLite's math functions (https://sqlite.org/lang_mathfunc.html), which the sqlite3 CLI and
 * libsql have and Deno's SQLite build lacks, registered with SQLite's own rules so users'
 * queries answer as there: a NULL, a text that is not a number or a BLOB gives NULL; a text
 * that is a number counts as that number; a result that is not a number (sqrt(-1)) is NULL;
 * ceil, floor and trunc keep an integer an integer.
 */
import type { DatabaseSync, SQLOutputValue as SqlValue } from "node:sqlite";

/** A number as SQLite's numeric affinity reads a text: decimal, optional sign and exponent. */
const NUMERIC_TEXT = /^[ \t\n\f\r]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\f\r]*$/;
const INTEGER_TEXT = /^[ \t\n\f\r]*[+-]?\d+[ \t\n\f\r]*$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A value as sqlite3_value_numeric_type sees it: an integer, a real, or not a number. */
function numeric(v: SqlValue): bigint | number | null {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (typeof v !== "string" || !NUMERIC_TEXT.test(v)) return null;
  if (INTEGER_TEXT.test(v)) {
    const n = BigInt(v.trim());
    if (n >= INT64_MIN && n <= INT64_MAX) return n;
  }
  return Number(v.trim());
}

/** A double result: NaN is NULL, as sqlite3_result_double makes it. */
function real(x: number): number | null {
  return Number.isNaN(x) ? null : x;
}

function unary(f: (x: number) => number) {
  return (v: SqlValue) => {
    const n = numeric(v);
    return n === null ? null : real(f(Number(n)));
  };
}

function binary(f: (x: number, y: number) => number) {
  return (a: SqlValue, b: SqlValue) => {
    const x = numeric(a);
    const y = numeric(b);
    return x === null || y === null ? null : real(f(Number(x), Number(y)));
  };
}

/** ceil, floor, trunc: an integer as it is, a real rounded as a real. */
function rounding(f: (x: number) => number) {
  return (v: SqlValue) => {
    const n = numeric(v);
    return n === null ? null : typeof n === "bigint" ? n : real(f(n));
  };
}

/** log(B, X): the logarithm of X in base B; nothing for arguments at or below zero. */
function logBase(b: SqlValue, v: SqlValue): number | null {
  const base = numeric(b);
  const x = numeric(v);
  if (base === null || x === null || Number(base) <= 0 || Number(x) <= 0) return null;
  return real(Math.log(Number(x)) / Math.log(Number(base)));
}

function positive(f: (x: number) => number) {
  return (v: SqlValue) => {
    const n = numeric(v);
    return n === null || Number(n) <= 0 ? null : real(f(Number(n)));
  };
}

const UNARY: Record<string, (x: number) => number> = {
  acos: Math.acos,
  acosh: Math.acosh,
  asin: Math.asin,
  asinh: Math.asinh,
  atan: Math.atan,
  atanh: Math.atanh,
  cos: Math.cos,
  cosh: Math.cosh,
  degrees: (x) => x * 180 / Math.PI,
  exp: Math.exp,
  radians: (x) => x * Math.PI / 180,
  sin: Math.sin,
  sinh: Math.sinh,
  sqrt: Math.sqrt,
  tan: Math.tan,
  tanh: Math.tanh,
};

const BINARY: Record<string, (x: number, y: number) => number> = {
  atan2: Math.atan2,
  mod: (x, y) => x % y,
  pow: Math.pow,
  power: Math.pow,
};

const ROUNDING: Record<string, (x: number) => number> = {
  ceil: Math.ceil,
  ceiling: Math.ceil,
  floor: Math.floor,
  trunc: Math.trunc,
};

/** Registers the math functions on a connection, each deterministic. */
export function registerMath(db: Pick<DatabaseSync, "function">): void {
  const options = { deterministic: true, useBigIntArguments: true };
  for (const [name, f] of Object.entries(UNARY)) db.function(name, options, unary(f));
  for (const [name, f] of Object.entries(BINARY)) db.function(name, options, binary(f));
  for (const [name, f] of Object.entries(ROUNDING)) db.function(name, options, rounding(f));
  db.function("ln", options, positive(Math.log));
  db.function("log10", options, positive(Math.log10));
  db.function("log2", options, positive(Math.log2));
  // log(X) is base 10, like log10; log(B, X) is registered beside it, as SQLite does.
  db.function("log", options, positive(Math.log10));
  db.function("log", options, logBase);
  db.function("pi", options, () => Math.PI);
}
