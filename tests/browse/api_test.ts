import assert from "node:assert/strict";
import {
  api,
  fileHash,
  makeFixtureDb,
  postQuery,
  startTestBrowser,
} from "../support/browse_fixtures.ts";

Deno.test("browse API: routes, values, errors", async (t) => {
  const path = await makeFixtureDb();
  const before = await fileHash(path);
  const b = await startTestBrowser(path, { maxRows: 2 });
  try {
    await t.step("GET /api/info", async () => {
      const r = await api(b, "/api/info");
      assert.equal(r.status, 200);
      const info = r.body as Record<string, unknown>;
      assert.equal(info.database, "fixture.db");
      assert.equal(info.read_only, true);
      assert.match(String(info.sqlite_version), /^3\.\d+/);
      assert.equal(info.views, 1);
      assert.ok(!r.text.includes(path), "no server path in /info");
    });

    await t.step("GET /api/tables lists tables and views", async () => {
      const r = await api(b, "/api/tables");
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, [
        "a/b",
        "cheap",
        "empty",
        "items",
        "kv",
        'we"ird; name',
        "x",
        "ünïcødé",
      ]);
    });

    await t.step("GET /api/tables/:table describes columns", async () => {
      const r = await api(b, "/api/tables/items");
      assert.equal(r.status, 200);
      const body = r.body as { type: string; without_rowid: boolean; columns: unknown[] };
      assert.equal(body.type, "table");
      assert.equal(body.without_rowid, false);
      assert.deepEqual(body.columns[0], {
        name: "id",
        type: "INTEGER",
        nullable: true,
        default: null,
        primary_key: 1,
        hidden: false,
      });
      assert.deepEqual(body.columns[1], {
        name: "name",
        type: "TEXT",
        nullable: false,
        default: "'x'",
        primary_key: 0,
        hidden: false,
      });
    });

    await t.step("views and WITHOUT ROWID tables", async () => {
      const v = await api(b, "/api/tables/cheap");
      assert.equal((v.body as { type: string }).type, "view");
      const kv = await api(b, "/api/tables/kv");
      assert.equal((kv.body as { without_rowid: boolean }).without_rowid, true);
      const q = await api(b, "/api/query?query=" + encodeURIComponent("select * from cheap"));
      assert.deepEqual((q.body as { rows: unknown[] }).rows, [[3, "fig"]]);
      const ix = await api(b, "/api/tables/kv/indexes");
      assert.equal((ix.body as { origin: string }[])[0].origin, "pk");
    });

    await t.step("GET /api/tables/:table/indexes", async () => {
      const r = await api(b, "/api/tables/items/indexes");
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, [
        { name: "items_name", unique: false, origin: "c", partial: false, columns: ["name"] },
        { name: "items_qty", unique: true, origin: "c", partial: true, columns: ["qty"] },
      ]);
    });

    await t.step("table names: injection, quotes, unicode, percent-encoding, unknown", async () => {
      const weird = await api(b, "/api/tables/" + encodeURIComponent('we"ird; name'));
      assert.equal(weird.status, 200);
      assert.equal((weird.body as { name: string }).name, 'we"ird; name');
      const uni = await api(b, "/api/tables/" + encodeURIComponent("ünïcødé"));
      assert.equal(uni.status, 200);
      const slash = await api(b, "/api/tables/a%2Fb");
      assert.equal(slash.status, 200, slash.text);
      for (
        const name of ['"; DROP TABLE x; --', "x'; DROP TABLE x; --", "items' OR '1'='1", "nope"]
      ) {
        const r = await api(b, "/api/tables/" + encodeURIComponent(name));
        assert.equal(r.status, 404, name);
        assert.deepEqual(Object.keys(r.body as object), ["error"]);
        const ix = await api(b, "/api/tables/" + encodeURIComponent(name) + "/indexes");
        assert.equal(ix.status, 404, name);
      }
      const still = await api(b, "/api/tables/x");
      assert.equal(still.status, 200, "table x survived");
    });

    await t.step("query: big integers exact, BLOBs as base64, row cap", async () => {
      const r = await api(
        b,
        "/api/query?query=" + encodeURIComponent("select * from items order by id"),
      );
      assert.equal(r.status, 200);
      const body = r.body as {
        columns: string[];
        rows: unknown[][];
        truncated: boolean;
        stats: { rows: number };
      };
      assert.deepEqual(body.columns, ["id", "name", "qty", "data", "price"]);
      assert.deepEqual(body.rows, [
        [1, "apple", "9007199254740993", { $base64: true, encoded: "AP8Q" }, 1.5],
        [2, "pear", "-9007199254740993", null, null],
      ]);
      assert.equal(body.truncated, true);
      assert.equal(body.stats.rows, 2);
      const safe = await postQuery(b, "select qty, data from items where id = ?", [3]);
      assert.deepEqual((safe.body as { rows: unknown[] }).rows, [[9007199254740991, {
        $base64: true,
        encoded: "",
      }]]);
    });

    await t.step("query: empty result keeps its columns", async () => {
      const r = await postQuery(b, "select * from empty");
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        columns: ["a", "b"],
        rows: [],
        stats: (r.body as { stats: unknown }).stats,
        truncated: false,
      });
    });

    await t.step("query input: JSON with params, form, text/plain, GET params", async () => {
      const named = await postQuery(b, "select name from items where id = :id", { id: 2 });
      assert.deepEqual((named.body as { rows: unknown }).rows, [["pear"]]);
      const form = await api(b, "/api/query", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ query: "select ?1 + 1", params: "[41]" }),
      });
      assert.deepEqual((form.body as { rows: unknown }).rows, [[42]]);
      const text = await api(b, "/api/query", { method: "POST", body: "select 'plain'" });
      assert.deepEqual((text.body as { rows: unknown }).rows, [["plain"]]);
      const get = await api(b, "/api/query?query=select%20%3F&params=%5B%22g%22%5D");
      assert.deepEqual((get.body as { rows: unknown }).rows, [["g"]]);
      const blob = await postQuery(b, "select hex(?)", [{ $base64: true, encoded: "AP8=" }]);
      assert.deepEqual((blob.body as { rows: unknown }).rows, [["00FF"]]);
    });

    await t.step("400: SQL errors, two statements, bad input", async () => {
      for (
        const [query, pattern] of [
          ["select * from nosuch", /no such table/],
          ["selec 1", /syntax error/],
          ["select 1; select 2", /one statement/],
          ["   ", /query is required/],
        ] as const
      ) {
        const r = await postQuery(b, query);
        assert.equal(r.status, 400, query);
        assert.match((r.body as { error: string }).error, pattern);
        assert.ok(!r.text.includes("/work/") && !r.text.includes(" at "), "no paths or stacks");
      }
      const noQuery = await api(b, "/api/query");
      assert.equal(noQuery.status, 400);
      const badJson = await api(b, "/api/query", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{",
      });
      assert.equal(badJson.status, 400);
      const badFormat = await api(b, "/api/query?query=select%201&format=pdf");
      assert.equal(badFormat.status, 400);
      const badParams = await api(b, "/api/query?query=select%201&params=nope");
      assert.equal(badParams.status, 400);
    });

    await t.step("413: body and query size caps", async () => {
      const big = await api(b, "/api/query", { method: "POST", body: "x".repeat(2 * 1024 * 1024) });
      assert.equal(big.status, 413);
      const long = await postQuery(b, "select '" + "a".repeat(100_001) + "'");
      assert.equal(long.status, 413);
    });

    await t.step("404: unknown routes", async () => {
      const r = await api(b, "/api/nope");
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: "not found" });
    });

    await t.step("explain returns the query plan", async () => {
      const r = await api(
        b,
        "/api/explain?query=" + encodeURIComponent("select * from items where id = 1"),
      );
      assert.equal(r.status, 200);
      const body = r.body as { columns: string[]; rows: unknown[][] };
      assert.ok(body.columns.includes("detail"));
      assert.match(JSON.stringify(body.rows), /SEARCH items USING INTEGER PRIMARY KEY/);
      const post = await postQuery(
        b,
        "select name from items where name = 'fig'",
        undefined,
        "/api/explain",
      );
      assert.match(JSON.stringify(post.body), /items_name/);
    });

    await t.step("history: successful calls, oldest first", async () => {
      const r = await api(b, "/api/history");
      assert.equal(r.status, 200);
      const h = r.body as { query: string; timestamp: string; duration_ms: number; rows: number }[];
      assert.ok(h.length >= 5);
      assert.equal(h[0].query, "select * from cheap");
      assert.equal(h[0].rows, 1);
      assert.ok(!Number.isNaN(Date.parse(h[0].timestamp)));
      assert.ok(h.every((e) => !e.query.includes("nosuch")), "failed queries are not recorded");
      assert.equal(h.at(-1)?.query, "select name from items where name = 'fig'");
    });

    await t.step("the web page is served at /", async () => {
      const r = await api(b, "/");
      assert.equal(r.status, 200);
      assert.match(r.headers.get("content-type") ?? "", /text\/html/);
      assert.match(r.text, /\/db\/query/);
      assert.match(r.headers.get("content-security-policy") ?? "", /frame-ancestors/);
    });
  } finally {
    await b.close();
  }
  assert.equal(await fileHash(path), before, "the database file is unchanged");
});
