import assert from "node:assert/strict";
import { singleStatement, SqlTextError, tokenize } from "../../src/browse/sql/sql_text.ts";
import { checkProgram, checkTokens, planPragma, RefusedError } from "../../src/browse/sql/guard.ts";
import { explainPrefix, listableBlobs } from "../../src/browse/sql/sql_text.ts";

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

Deno.test("checkTokens: dangerous names, quoted or not, in any case; ATTACH and transactions", () => {
  for (
    const sql of [
      `select READFILE('x')`,
      `select "writefile"('a','b')`,
      "select * from [fsdir]('/')",
      "SELECT $a(') AS x, name, data FROM fsdir('/etc/passwd') --'",
      "attach 'x' as y",
      "detach y",
      "begin",
      "savepoint a",
      "commit",
    ]
  ) {
    assert.throws(() => checkTokens(tokenize(sql)), RefusedError, sql);
  }
  checkTokens(tokenize("select 'readfile' as name"));
});

Deno.test("planPragma: read-only pragmas in read forms; everything else refused before prepare", () => {
  const plan = (sql: string, write = false) => {
    const tokens = tokenize(sql);
    return planPragma(tokens, explainPrefix(tokens).inner, write);
  };
  assert.deepEqual(plan("pragma table_info('items')"), {
    name: "table_info",
    schema: undefined,
    arg: "items",
  });
  assert.deepEqual(plan("PRAGMA main.table_info = items"), {
    name: "table_info",
    schema: "main",
    arg: "items",
  });
  assert.equal(plan("pragma main.user_version").name, "user_version");
  assert.equal(plan("EXPLAIN QUERY PLAN /**/ PRAGMA integrity_check(3)").arg, 3);
  for (
    const sql of [
      "pragma user_version = 3",
      "pragma main.foreign_keys=off",
      "pragma cache_size(10)",
      "pragma main.cache_size=5",
      "PRAGMA hard_heap_limit=1000000",
      "EXPLAIN PRAGMA hard_heap_limit=1000000",
      "EXPLAIN QUERY PLAN PRAGMA cache_size=1",
      "PRAGMA writable_schema=ON",
      "PRAGMA writable_schema",
      "PRAGMA temp_store_directory",
      "PRAGMA table_info(items) x",
      "PRAGMA table_info(a, b)",
      "PRAGMA table_info($a(')",
      "PRAGMA soft_heap_limit",
    ]
  ) {
    assert.throws(() => plan(sql), RefusedError, sql);
  }
  assert.equal(plan("pragma user_version = 3", true).writeText, "PRAGMA user_version = 3");
  assert.throws(() => plan("pragma cache_size = 3", true), RefusedError);
});

const rules = { write: false, vtabs: new Map<string, string>() };
const op = (opcode: string, p4: string | null, p2 = 0) => ({ opcode, p1: 0, p2, p3: 0, p4 });

Deno.test("checkProgram: write opcodes refused read-only, allowed with write", () => {
  const write = [op("Transaction", null, 1)];
  assert.throws(() => checkProgram(write, rules), RefusedError);
  checkProgram(write, { ...rules, write: true });
  assert.throws(
    () => checkProgram([op("Vacuum", null, 1)], { ...rules, write: true }),
    /VACUUM INTO/,
  );
  assert.throws(
    () => checkProgram([op("AutoCommit", null)], { ...rules, write: true }),
    /transaction/,
  );
});

Deno.test("checkProgram: functions on an allow-list, in every function and aggregate opcode", () => {
  checkProgram(
    [op("Function", "upper(1)"), op("AggStep", "count(0)"), op("PureFunc", "->>(2)")],
    rules,
  );
  for (
    const opcode of [
      "Function",
      "PureFunc",
      "AggStep",
      "AggStep1",
      "AggValue",
      "AggInverse",
      "AggFinal",
    ]
  ) {
    assert.throws(() => checkProgram([op(opcode, "readfile(-1)")], rules), /readfile/, opcode);
    assert.throws(
      () => checkProgram([op(opcode, "some_new_function(1)")], rules),
      /some_new_function/,
    );
  }
  assert.throws(() => checkProgram([op("Function", "sqlite_attach(3)")], rules), /sqlite_attach/);
});

Deno.test("checkProgram: a virtual table is allowed only by the pointer of an allowed module", () => {
  const vtabs = new Map([["vtab:55AA", "json_each"]]);
  checkProgram([op("VOpen", "vtab:55AA")], { write: false, vtabs });
  assert.throws(
    () => checkProgram([op("VOpen", "vtab:66BB")], { write: false, vtabs }),
    /virtual table/,
  );
});

Deno.test("listableBlobs: blob literals that are not UTF-8 become unhex() calls", () => {
  const sql = "SELECT x'ff', x'41', X'00ff', 'x''ff'";
  assert.equal(
    listableBlobs(sql, tokenize(sql), 0),
    "SELECT (unhex('ff')), x'41', X'00ff', 'x''ff'",
  );
});
