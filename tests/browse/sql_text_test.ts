import assert from "node:assert/strict";
import { singleStatement, SqlTextError, tokenize } from "../../src/browse/sql_text.ts";
import { checkProgram, checkTokens, RefusedError, taintedObjects } from "../../src/browse/guard.ts";

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

Deno.test("checkTokens: denied names, quoted or not, in any case", () => {
  for (
    const sql of [
      `select READFILE('x')`,
      `select "writefile"('a','b')`,
      "select * from [fsdir]('/')",
      "attach 'x' as y",
      "detach y",
      "begin",
      "savepoint a",
    ]
  ) {
    assert.throws(() => checkTokens(tokenize(sql), true), RefusedError, sql);
  }
  checkTokens(tokenize("select 'readfile' as name"), false);
});

Deno.test("checkTokens: read-only pragmas pass, pragma writes do not", () => {
  checkTokens(tokenize("pragma table_info('items')"), false);
  checkTokens(tokenize("pragma main.user_version"), false);
  assert.throws(() => checkTokens(tokenize("pragma user_version = 3"), false), RefusedError);
  assert.throws(() => checkTokens(tokenize("pragma main.foreign_keys=off"), false), RefusedError);
  assert.throws(() => checkTokens(tokenize("pragma cache_size(10)"), false), RefusedError);
  checkTokens(tokenize("pragma user_version = 3"), true);
});

Deno.test("checkProgram: write opcodes refused read-only, allowed with write", () => {
  const write = [{ opcode: "Transaction", p1: 0, p2: 1, p3: 0, p4: null }];
  assert.throws(() => checkProgram(write, false, false), RefusedError);
  checkProgram(write, true, false);
  const vacuumInto = [{ opcode: "Vacuum", p1: 0, p2: 1, p3: 0, p4: null }];
  assert.throws(() => checkProgram(vacuumInto, true, false), /VACUUM INTO/);
  const fn = [{ opcode: "Function", p1: 0, p2: 1, p3: 0, p4: "readfile(-1)" }];
  assert.throws(() => checkProgram(fn, true, false), /readfile/);
});

Deno.test("taintedObjects: views using denied names, directly or through other views", () => {
  const obj = (name: string, sql: string) => ({ name, type: "view", tokens: tokenize(sql) });
  const t = taintedObjects([
    obj("v2", "create view v2 as select * from v1"),
    obj("v1", "create view v1 as select * from fsdir('/')"),
    obj("ok", "create view ok as select 'fsdir'"),
  ]);
  assert.deepEqual([...t.keys()].sort(), ["v1", "v2"]);
});
