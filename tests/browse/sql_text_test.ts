import assert from "node:assert/strict";
import { singleStatement, SqlTextError, tokenize } from "../../src/browse/sql/sql_text.ts";
import { explainPrefix } from "../../src/browse/sql/sql_text.ts";

Deno.test("tokenize: strings, quoted names and comments are not words", () => {
  const t = tokenize(`SELECT 'readfile', "we""ird", [br]acket, \`bq\` -- readfile\n/* x */ 1.5e-3`);
  assert.deepEqual(t.map((x) => [x.kind, x.value]), [
    ["word", "SELECT"],
    ["string", "'readfile'"],
    ["punct", ","],
    ["ident", 'we"ird'],
    ["punct", ","],
    ["ident", "br"],
    ["word", "acket"],
    ["punct", ","],
    ["ident", "bq"],
    ["number", "1.5e-3"],
  ]);
});

Deno.test("singleStatement: one statement, trailing semicolons and comments allowed", () => {
  assert.equal(singleStatement("select 1; ; -- done").statement, "select 1");
  assert.equal(singleStatement("select ';' as s;").statement, "select ';' as s");
});

Deno.test("singleStatement: a second statement is an error, never dropped", () => {
  assert.throws(() => singleStatement("select 1; drop table x"), SqlTextError);
  assert.throws(() => singleStatement("select 1;select 2;"), /one statement/);
  assert.throws(() => singleStatement("  -- nothing"), /empty/);
  assert.throws(() => singleStatement("select 'open"), /unterminated/);
});

Deno.test("singleStatement: a trigger body keeps its semicolons", () => {
  const sql = "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT CASE WHEN 1 THEN 2 END; " +
    "UPDATE x SET y = 1; END;";
  assert.equal(singleStatement(sql).statement, sql.slice(0, -1));
  assert.throws(() => singleStatement(sql + " select 1"), /one statement/);
});

Deno.test("tokenize: bind variables end where SQLite ends them ($a(...), ?1, :x, @y, a::b)", () => {
  const t = tokenize("SELECT $a(') AS x, name FROM fsdir('/etc/passwd') --'");
  assert.deepEqual(t.slice(0, 3).map((x) => [x.kind, x.value]), [
    ["word", "SELECT"],
    ["param", "$a(')"],
    ["word", "AS"],
  ]);
  assert.ok(t.some((x) => x.kind === "word" && x.value === "fsdir"), "fsdir is seen");
  assert.deepEqual(tokenize("?12 :x @y $a::b #c").map((x) => x.value), [
    "?12",
    ":x",
    "@y",
    "$a::b",
    "#c",
  ]);
  // Whitespace ends the Tcl form where SQLite ends it (an illegal token there).
  assert.deepEqual(tokenize("$a( 'x'").map((x) => x.kind), ["param", "string"]);
});

Deno.test("explainPrefix: EXPLAIN and EXPLAIN QUERY PLAN, in any case, past comments", () => {
  assert.deepEqual(explainPrefix(tokenize("select 1")), { mode: "none", inner: 0 });
  assert.deepEqual(explainPrefix(tokenize("/* x */ explain select 1")), {
    mode: "explain",
    inner: 1,
  });
  assert.deepEqual(explainPrefix(tokenize("EXPLAIN query PLAN select 1")), {
    mode: "plan",
    inner: 3,
  });
});
