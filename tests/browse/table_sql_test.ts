/** The SQL of a table view, as text: names quoted, values bound, keyset terms NULL-aware. */
import { assertEquals } from "../support/assert.ts";
import {
  countQuery,
  downloadQuery,
  filterTerms,
  type Op,
  OPERATORS,
  pageQuery,
  pastKey,
  type TableShape,
} from "../../src/browse/http/pages/table_sql.ts";

const HOSTILE = `x'); DROP TABLE t; --`;

Deno.test("table sql: every filter operator binds its value and quotes its column", () => {
  for (const op of Object.keys(OPERATORS) as Op[]) {
    const { terms, params } = filterTerms([{ column: `a"b`, op, value: HOSTILE }]);
    assertEquals(terms.length, 1);
    assertEquals(terms[0].includes("DROP"), false, `${op}: the value is never in the SQL`);
    assertEquals(terms[0].startsWith(`"a""b"`) || terms[0].startsWith(`instr("a""b"`), true);
    // `in` takes a comma-separated list (HOSTILE has no comma: one value).
    assertEquals(params, op === "null" || op === "notnull" ? [] : [HOSTILE]);
  }
  assertEquals(filterTerms([{ column: "n", op: "in", value: '[1, "a,b"]' }]), {
    terms: [`"n" IN (?, ?)`],
    params: [1, "a,b"],
  });
});

Deno.test("table sql: keyset terms treat NULL as SQLite sorts it (first ascending)", () => {
  assertEquals(pastKey(["c", "rowid"], [null, 5], true), {
    sql: "(c IS NOT NULL OR (c IS NULL AND rowid > ?))",
    params: [5],
  });
  assertEquals(pastKey(["c", "rowid"], [null, 5], false), {
    sql: "(0 OR (c IS NULL AND (rowid < ? OR rowid IS NULL)))",
    params: [5],
  });
  assertEquals(pastKey(["c", "rowid"], ["v", 5], true), {
    sql: "(c > ? OR (c = ? AND rowid > ?))",
    params: ["v", "v", 5],
  });
});

Deno.test("table sql: pages by key, by OFFSET without one; downloads and counts", () => {
  const rowid: TableShape = { name: "t", columns: ["c"], key: { kind: "rowid", name: "rowid" } };
  const view: TableShape = { name: "v", columns: ["c"], key: { kind: "none", why: "a view" } };
  const sort = { column: "c", desc: true };
  assertEquals(pageQuery(rowid, [], sort, { kind: "after", key: [3, 9] }, 10), {
    sql:
      `SELECT "c", typeof("c"), rowid, typeof(rowid), * FROM "t" WHERE (("c" < ? OR "c" IS NULL) OR ("c" = ? AND (rowid < ? OR rowid IS NULL))) ORDER BY "c" DESC, rowid DESC LIMIT ?`,
    params: [3, 3, 9, 11],
    keyColumns: 4,
    reversed: false,
    offset: false,
  });
  assertEquals(
    pageQuery(view, [], undefined, { kind: "offset", page: 3 }, 10).sql,
    `SELECT * FROM "v" LIMIT ? OFFSET ?`,
  );
  assertEquals(pageQuery(view, [], undefined, { kind: "offset", page: 3 }, 10).params, [11, 20]);
  // Without a key a view is ordered by its sort column alone, the last page read backwards.
  assertEquals(
    pageQuery(view, [], sort, { kind: "last" }, 10).sql,
    `SELECT * FROM "v" ORDER BY "c" LIMIT ?`,
  );
  assertEquals(downloadQuery(view, [], sort).sql, `SELECT * FROM "v" ORDER BY "c" DESC`);
  assertEquals(
    pageQuery(rowid, [], undefined, { kind: "last" }, 10).sql,
    `SELECT rowid, typeof(rowid), * FROM "t" ORDER BY rowid DESC LIMIT ?`,
  );
  assertEquals(downloadQuery(rowid, [{ column: "c", op: "gt", value: "1" }], sort), {
    sql: `SELECT * FROM "t" WHERE "c" > ? ORDER BY "c" DESC, rowid DESC`,
    params: ["1"],
  });
  assertEquals(countQuery(rowid, []).sql, `SELECT count(*) FROM (SELECT 1 FROM "t" LIMIT ?)`);
});
