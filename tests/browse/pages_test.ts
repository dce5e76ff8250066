/**
 * The pages without a browser: each view is a URL whose HTML is read with htmlparser2, and its
 * rows are checked against SQLite's own answer to the SQL the view stands for.
 */
import Database from "npm:libsql@0.5.29";
import { DomUtils, parseDocument } from "htmlparser2";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { fileHash, makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";
import type { RunningBrowser } from "../../src/browse/http/server.ts";

type Document = ReturnType<typeof parseDocument>;
type Element = ReturnType<typeof DomUtils.findAll>[number];

interface Html {
  status: number;
  doc: Document;
  text: string;
  headers: Headers;
}

async function get(server: RunningBrowser, path: string, init?: RequestInit): Promise<Html> {
  const res = await fetch(new URL(path, server.url), { redirect: "manual", ...init });
  const text = await res.text();
  return { status: res.status, doc: parseDocument(text), text, headers: res.headers };
}

function all(doc: Document | Element, test: (e: Element) => boolean): Element[] {
  return DomUtils.findAll(test, [doc as unknown as Element]);
}
const textOf = (e: Element) => DomUtils.textContent(e);
const isTag = (name: string, cls?: string) => (e: Element) =>
  e.name === name && (cls === undefined || (e.attribs.class ?? "").split(" ").includes(cls));

/** The rows of the page's result table: each row's key (from its row link) and cell texts. */
function pageRows(h: Html): { key: string | null; cells: string[] }[] {
  const table = all(h.doc, isTag("table", "rows"))[0];
  if (!table) throw new Error(`no result table (status ${h.status}):\n${h.text.slice(-2000)}`);
  const body = all(table, isTag("tbody"))[0];
  return all(body, isTag("tr")).map((tr) => {
    const tds = tr.children.filter((c: unknown): c is Element => (c as Element).name === "td");
    const link = all(tr, (e) => e.name === "a" && (e.attribs.href ?? "").includes("/row?"))[0];
    const key = link ? new URL(link.attribs.href, "http://x").searchParams.get("key") : null;
    return { key, cells: tds.map(textOf) };
  });
}

function rel(h: Html, name: string): string | null {
  return all(h.doc, (e) => e.name === "a" && e.attribs.rel === name)[0]?.attribs.href ?? null;
}

function link(h: Html, text: RegExp): string {
  const a = all(h.doc, (e) => e.name === "a" && text.test(textOf(e)))[0];
  if (!a) throw new Error(`no link ${text}`);
  return a.attribs.href;
}

/** Every page of a view, following `rel` links from `start`: the keys in order. */
async function walk(server: RunningBrowser, start: string, direction = "next"): Promise<string[]> {
  const keys: string[] = [];
  let path: string | null = start;
  for (let pages = 0; path !== null; pages++) {
    assert(pages < 200, "the pager ends");
    const h = await get(server, path);
    assertEquals(h.status, 200, path);
    const rows = pageRows(h).map((r) => r.key!);
    keys.push(...(direction === "next" ? rows : rows.reverse()));
    path = rel(h, direction);
  }
  return keys;
}

/** A database made by `sql`, and a connection to ask it what the answer must be. */
async function dbOf(sql: string): Promise<{ path: string; db: Database.Database }> {
  const path = `${await Deno.makeTempDir({ prefix: "pages_" })}/t.db`;
  const db = new Database(path);
  db.exec(sql);
  return { path, db };
}

function rowids(db: Database.Database, sql: string, ...params: unknown[]): string[] {
  return (db.prepare(sql).raw(true).all(...params) as unknown[][]).map((r) => `[${r[0]}]`);
}

const SORT_DB = `
  CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER, s TEXT COLLATE NOCASE, b TEXT);
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
  INSERT INTO t (v, s, b)
    SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END,
           CASE i % 4 WHEN 0 THEN 'a' WHEN 1 THEN 'A' WHEN 2 THEN 'b' ELSE NULL END,
           CASE i % 3 WHEN 0 THEN 'x' WHEN 1 THEN 'X' ELSE '' END
    FROM n;`;

Deno.test("pages: sort both ways pages by key like SQLite's ORDER BY, NULLs, ties, collations", async () => {
  const { path, db } = await dbOf(SORT_DB);
  const server = await startTestBrowser(path);
  try {
    for (const column of ["v", "s", "b", "id"]) {
      for (const desc of [false, true]) {
        const dir = desc ? "DESC" : "ASC";
        const expected = rowids(
          db,
          `SELECT rowid FROM t ORDER BY "${column}" ${dir}, rowid ${dir}`,
        );
        const q = `sort=${column}${desc ? "&desc=1" : ""}&size=7`;
        const forward = await walk(server, `/db/table/t?${q}`);
        assertEquals(forward, expected, `${column} ${dir}: every row once, in SQLite's order`);
        // From the last page back with Previous: the same rows, the same order.
        const backward = await walk(server, `/db/table/t?${q}&last=1`, "prev");
        assertEquals(backward.reverse(), expected, `${column} ${dir} read backwards`);
      }
    }
    // The header link cycles ascending, descending, off.
    const h = await get(server, "/db/table/t");
    const sortV = all(h.doc, (e) => e.name === "th")
      .map((th) => all(th, isTag("a"))[0]?.attribs.href).find((href) => href?.includes("sort=v"))!;
    assertEquals(sortV, "/db/table/t?sort=v");
    const asc = await get(server, sortV);
    const toDesc = all(asc.doc, (e) =>
      e.name === "th" && e.attribs["aria-sort"] === "ascending")[0];
    assertEquals(all(toDesc, isTag("a"))[0].attribs.href, "/db/table/t?sort=v&desc=1");
  } finally {
    await server.close();
    db.close();
  }
});

Deno.test("pages: key paging of a WITHOUT ROWID table and OFFSET paging of a view, said so", async () => {
  const { path, db } = await dbOf(`
    CREATE TABLE k (a TEXT, b INTEGER, c TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
    INSERT INTO k SELECT char(65 + i % 3), i, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 4 END FROM n;
    CREATE VIEW kv AS SELECT a, b FROM k WHERE b > 5;`);
  const server = await startTestBrowser(path);
  try {
    const expected = (db.prepare("SELECT a, b FROM k ORDER BY c DESC, a DESC, b DESC").raw(true)
      .all() as unknown[][]).map((r) => JSON.stringify(r));
    const keys = await walk(server, "/db/table/k?sort=c&desc=1&size=6");
    assertEquals(keys.map((k) => JSON.stringify(JSON.parse(k))), expected);

    const view = await get(server, "/db/table/kv?size=10");
    assertMatch(view.text, /read with OFFSET \(a view has no key\)/);
    const seen: string[] = [];
    for (let p: string | null = "/db/table/kv?size=10"; p !== null;) {
      const h = await get(server, p);
      seen.push(...pageRows(h).map((r) => r.cells.join("|")));
      p = rel(h, "next");
    }
    const all = (db.prepare("SELECT a, b FROM kv").raw(true).all() as unknown[][])
      .map((r) => r.join("|"));
    assertEquals(seen, all);
  } finally {
    await server.close();
    db.close();
  }
});

const HOSTILE_VALUES = [
  "it's",
  '"quoted"',
  "100%",
  "a_b",
  "nul\u0000byte",
  "emoji 🦆",
  "\u202Etxt.exe",
  "",
  "%",
  "_",
];

Deno.test("pages: each filter operator selects what its SQL selects, hostile values bound", async () => {
  const values = [...HOSTILE_VALUES, "abc", "ABC", "abcdef", "10", "9", "b", null];
  const { path, db } = await dbOf("CREATE TABLE f (id INTEGER PRIMARY KEY, s TEXT, n INTEGER)");
  const insert = db.prepare("INSERT INTO f (s, n) VALUES (?, ?)");
  values.forEach((v, i) => insert.run(v, i % 3 === 0 ? null : i));
  const server = await startTestBrowser(path);
  const cases: [string, string, string][] = [];
  for (const v of [...HOSTILE_VALUES, "abc", "10"]) {
    cases.push(
      ["eq", v, "s = ?"],
      ["ne", v, "s <> ?"],
      ["lt", v, "s < ?"],
      ["le", v, "s <= ?"],
      ["gt", v, "s > ?"],
      ["ge", v, "s >= ?"],
      // What a person means: a substring, a prefix (case counts; % and _ are themselves).
    );
  }
  try {
    for (const [op, value, sql] of cases) {
      const q = new URLSearchParams({ fc: "s", fo: op, fv: value, size: "1000" });
      const h = await get(server, `/db/table/f?${q}`);
      assertEquals(h.status, 200, `${op} ${JSON.stringify(value)}`);
      const got = pageRows(h).map((r) => r.key);
      const want = rowids(db, `SELECT rowid FROM f WHERE ${sql} ORDER BY rowid`, value);
      assertEquals(got, want, `${op} ${JSON.stringify(value)}`);
    }
    // What a person means by these two: a substring, a prefix (case counts; % and _ are
    // themselves), as JavaScript finds them in the stored values.
    for (const v of [...HOSTILE_VALUES, "abc", "B"]) {
      for (
        const [op, test] of [
          ["contains", (s: string) => s.includes(v)],
          ["starts", (s: string) => s.startsWith(v)],
        ] as const
      ) {
        const q = new URLSearchParams({ fc: "s", fo: op, fv: v, size: "1000" });
        const want = values.flatMap((s, i) =>
          typeof s === "string" && test(s) ? [`[${i + 1}]`] : []
        );
        assertEquals(
          pageRows(await get(server, `/db/table/f?${q}`)).map((r) => r.key),
          want,
          `${op} ${JSON.stringify(v)}`,
        );
      }
    }
    for (const [op, sql] of [["null", "s IS NULL"], ["notnull", "s IS NOT NULL"]]) {
      const h = await get(server, `/db/table/f?fc=s&fo=${op}&size=1000`);
      assertEquals(pageRows(h).map((r) => r.key), rowids(db, `SELECT rowid FROM f WHERE ${sql}`));
    }
    const list = JSON.stringify(["it's", "100%", "emoji 🦆", "nul\u0000byte"]);
    const h = await get(
      server,
      `/db/table/f?${new URLSearchParams({ fc: "s", fo: "in", fv: list })}`,
    );
    assertEquals(
      pageRows(h).map((r) => r.key),
      rowids(db, "SELECT rowid FROM f WHERE s IN (?, ?, ?, ?)", ...JSON.parse(list)),
    );
    const csv = await get(server, `/db/table/f?fc=n&fo=in&fv=${encodeURIComponent("1, 2,5")}`);
    assertEquals(
      pageRows(csv).map((r) => r.key),
      rowids(db, "SELECT rowid FROM f WHERE n IN (1, 2, 5)"),
    );
    // Two filters and a sort: their conjunction, in order.
    const both = await get(
      server,
      "/db/table/f?fc=n&fo=notnull&fv=&fc=s&fo=gt&fv=a&sort=n&desc=1",
    );
    assertEquals(
      pageRows(both).map((r) => r.key),
      rowids(db, "SELECT rowid FROM f WHERE n IS NOT NULL AND s > 'a' ORDER BY n DESC, rowid DESC"),
    );
    // A filter on a column the table does not have is refused, by name, as text.
    const bad = await get(server, "/db/table/f?fc=%3Cb%3Enope&fo=eq&fv=1");
    assertEquals(bad.status, 400);
    assertMatch(bad.text, /no column &quot;&lt;b&gt;nope&quot;/);
    const badOp = await get(server, "/db/table/f?fc=s&fo=like&fv=1");
    assertEquals(badOp.status, 400);
  } finally {
    await server.close();
    db.close();
  }
});

Deno.test("pages: a filtered, sorted view's CSV is sqlite3 -csv of its SQL, 100,000 rows", async () => {
  const { path, db } = await dbOf(`
    CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, note TEXT);
    WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 120000)
    INSERT INTO big (name, n, note)
      SELECT 'name' || (i % 977), CASE WHEN i % 11 = 0 THEN NULL ELSE i % 101 END,
             CASE i % 10 WHEN 0 THEN 'a,b' WHEN 1 THEN 'say "hi"' WHEN 2 THEN 'line1' || char(10) || 'line2'
               WHEN 3 THEN NULL WHEN 4 THEN '' WHEN 5 THEN ' padded ' WHEN 6 THEN 'it''s ' || char(128578)
               WHEN 7 THEN char(8238) || 'txt.exe' WHEN 8 THEN 'café' || char(9) || 'x' ELSE 'plain-%_' END
      FROM s;`);
  db.close();
  // A limit a busy machine cannot reach: this is about bytes, not time.
  const server = await startTestBrowser(path, { timeoutMs: 120_000 });
  try {
    const view = "fc=id&fo=gt&fv=20000&sort=n&desc=1";
    const h = await get(server, `/db/table/big?${view}`);
    const csvLink = link(h, /CSV/);
    assertMatch(
      textOf(all(h.doc, (e) => e.name === "a" && e.attribs.href === csvLink)[0]),
      /^all 100,000 rows, CSV$/,
    );
    const res = await fetch(new URL(csvLink, server.url));
    assertEquals(res.status, 200);
    assertMatch(res.headers.get("content-disposition") ?? "", /filename="big\.csv"/);
    const ours = new Uint8Array(await res.arrayBuffer());
    const sql = "SELECT * FROM big WHERE id > '20000' ORDER BY n DESC, rowid DESC";
    const out = await new Deno.Command("sqlite3", {
      args: ["-csv", "-header", "-newline", "\r\n", path, sql],
      stdout: "piped",
    }).output();
    assert(out.success);
    assertEquals(ours.length, out.stdout.length);
    assert(ours.every((b, i) => b === out.stdout[i]), "byte for byte");
    // 100,000 data lines (and the notes' own line breaks).
    assertEquals(new TextDecoder().decode(ours).split("\r\n").length - 2, 100_000);
  } finally {
    await server.close();
  }
});

Deno.test("pages: hostile table and column names render as text and link correctly", async () => {
  const names = [`"; DROP TABLE x; --`, "<script>alert(1)</script>", "\u202Etxt.exe", "a/b?c#d%e"];
  const { path, db } = await dbOf(
    "CREATE TABLE x (y INTEGER PRIMARY KEY); INSERT INTO x VALUES (7);",
  );
  for (const name of names) {
    const q = `"${name.replaceAll('"', '""')}"`;
    db.exec(`CREATE TABLE ${q} ("__proto__" TEXT, "<b>" INTEGER REFERENCES x(y));
      INSERT INTO ${q} VALUES ('constructor', 7), ('<img src=x>', NULL);`);
  }
  db.close();
  const before = await fileHash(path);
  const server = await startTestBrowser(path);
  try {
    const home = await get(server, "/");
    assertEquals(all(home.doc, isTag("script")).length, 1, "only the page's own script");
    assertEquals(all(home.doc, isTag("img")).length, 0);
    for (const name of names) {
      const href = all(
        home.doc,
        (e) => e.name === "a" && e.attribs.href === `/db/table/${encodeURIComponent(name)}`,
      );
      assert(href.length > 0, `a link to ${name}`);
      const h = await get(
        server,
        `/db/table/${encodeURIComponent(name)}?sort=__proto__&fc=__proto__&fo=ne&fv=zzz`,
      );
      assertEquals(h.status, 200, name);
      const title = textOf(all(h.doc, isTag("h1"))[0]);
      assertEquals(title, name.replace("\u202E", "\\u202E"), "the name as text, controls shown");
      assertEquals(all(h.doc, isTag("script")).length, 1);
      assertEquals(all(h.doc, isTag("img")).length, 0);
      const rows = pageRows(h);
      assertEquals(rows.map((r) => r.cells.slice(1)), [["<img src=x>", "NULL"], [
        "constructor",
        "7",
      ]]);
      // The foreign key links to the row it references; the row link opens the row.
      const fk = all(h.doc, (e) =>
        e.name === "a" && (e.attribs.href ?? "").startsWith("/db/table/x?"))[0];
      assertEquals(fk.attribs.href, "/db/table/x?fc=y&fo=eq&fv=7");
      const row = await get(
        server,
        `/db/table/${encodeURIComponent(name)}/row?key=${encodeURIComponent(rows[1].key!)}`,
      );
      assertEquals(row.status, 200);
      assertMatch(row.text, /constructor/);
      const structure = await get(server, `/db/table/${encodeURIComponent(name)}/structure`);
      assertEquals(structure.status, 200);
      assertEquals(all(structure.doc, isTag("script")).length, 1);
      const csv = await fetch(new URL(link(h, /CSV/), server.url));
      assertEquals(await csv.text(), '__proto__,<b>\r\n"<img src=x>",\r\nconstructor,7\r\n');
    }
    // x's row page counts the rows that reference it, per table, with links that list them.
    const xRow = await get(server, "/db/table/x/row?key=[7]");
    const refs = all(xRow.doc, (e) => e.name === "a" && /1 row of/.test(textOf(e)));
    assertEquals(refs.length, names.length);
    const listed = await get(server, refs[0].attribs.href);
    assertEquals(pageRows(listed).map((r) => r.cells[1]), ["constructor"]);
  } finally {
    await server.close();
  }
  assertEquals(await fileHash(path), before, "nothing written");
});

Deno.test("pages: row, cell, structure and query views; BLOBs, NULL and '' apart", async () => {
  const server = await startTestBrowser(await makeFixtureDb());
  try {
    const items = await get(server, "/db/table/items");
    const rows = pageRows(items);
    assertEquals(rows[0].cells.slice(1, 3), ["1", "apple"]);
    assertMatch(rows[0].cells[4], /^BLOB 3 bytes 00 ff 10/);
    assertEquals(rows[1].cells[4], "NULL");
    const blob = await fetch(new URL("/db/table/items/cell?key=[1]&column=data&raw=1", server.url));
    assertEquals([...new Uint8Array(await blob.arrayBuffer())], [0, 255, 16]);
    // Numbers are right-aligned cells, NULL and the empty string differ.
    assert(items.text.includes(`<td class="num">1.5</td>`));
    const kvs = await get(server, "/db/query?sql=" + encodeURIComponent("SELECT NULL, '', 'x'"));
    assertEquals(pageRows(kvs)[0].cells, ["NULL", "''", "x"]);

    const structure = await get(server, "/db/table/items/structure");
    assertMatch(structure.text, /items_qty/);
    assertMatch(structure.text, /WHERE qty IS NOT NULL/);
    assertMatch(structure.text, /CREATE TABLE items/);
    const view = await get(server, "/db/table/cheap/structure");
    assertMatch(textOf(all(view.doc, isTag("h1"))[0]), /cheap\s*view/);
    // A name resolves as the API resolves it: exactly, else the one case-insensitive match.
    const upper = await get(server, "/db/table/ITEMS/structure");
    assertEquals(upper.status, 200);
    assertMatch(textOf(all(upper.doc, isTag("h1"))[0]), /^items$/);
    assertEquals((await get(server, "/db/table/nope/structure")).status, 404);
    // A raw cell that cannot be read answers as every other refusal does.
    const bad = await fetch(new URL("/db/table/items/cell?key=[1]&column=nope&raw=1", server.url));
    assertEquals(bad.status, 400);
    assertEquals(Object.keys(await bad.json()), ["error"]);

    // A query's pages past the first, its plan as a tree, bound parameters.
    const q = "SELECT value FROM json_each('[1,2,3,4,5]') WHERE value > ?";
    const page2 = await get(
      server,
      `/db/query?${new URLSearchParams({ sql: q, params: "[1]", size: "2", page: "2" })}`,
    );
    assertEquals(pageRows(page2).map((r) => r.cells), [["4"], ["5"]]);
    assertEquals(rel(page2, "next"), null);
    const plan = await get(
      server,
      `/db/query?${new URLSearchParams({
        sql: "SELECT * FROM items WHERE name = 'x'",
        plan: "1",
      })}`,
    );
    assertMatch(
      textOf(all(plan.doc, isTag("ul", "plan"))[0]),
      /SEARCH items USING INDEX items_name/,
    );
    const history = all(page2.doc, isTag("ol", "history"))[0];
    assert(textOf(history).includes(q), "the query is in the history, one click to re-run");

    // Read-only: no write button, and a POST is refused; a write through GET is refused too.
    assert(!/Run and write/.test(page2.text));
    const write = await get(server, `/db/query?sql=${encodeURIComponent("DELETE FROM items")}`);
    assertMatch(textOf(all(write.doc, isTag("p", "error"))[0]), /read-only|not allowed|refused/i);
  } finally {
    await server.close();
  }
});

Deno.test("pages: --write offers a plain write button; GET never writes", async () => {
  const path = await makeFixtureDb();
  const server = await startTestBrowser(path, { write: true });
  try {
    const q = await get(server, "/db/query");
    assertMatch(q.text, /Run and write \(may change the database\)/);
    assertMatch(q.text, /read-write/);
    const viaGet = await get(server, `/db/query?sql=${encodeURIComponent("DELETE FROM kv")}`);
    assert(all(viaGet.doc, isTag("p", "error")).length === 1, "a link never writes");
    const post = await get(server, "/db/query", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: server.url.slice(0, -1),
      },
      body: new URLSearchParams({ sql: "DELETE FROM kv WHERE k = 'a'" }),
    });
    assertEquals(post.status, 200, post.text.slice(-3000));
    assertMatch(post.text, /1 rows changed/);
    const foreign = await get(server, "/db/query", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: "http://evil.example",
      },
      body: new URLSearchParams({ sql: "DELETE FROM kv" }),
    });
    assertEquals(foreign.status, 403);
    const db = new Database(path);
    assertEquals((db.prepare("SELECT count(*) AS n FROM kv").get() as { n: number }).n, 1);
    db.close();
  } finally {
    await server.close();
  }
});

Deno.test("pages: with a token, a sign-in form; the token never in a URL or cookie", async () => {
  const token = "s3cret-token";
  const server = await startTestBrowser(await makeFixtureDb(), { token });
  try {
    for (const path of ["/", "/db/table/items", "/db/table/items/download?format=csv"]) {
      const h = await get(server, path);
      assertEquals(h.status, 401, path);
      assertMatch(h.text, /Token needed/);
      assert(!h.text.includes("apple"), "no data before signing in");
    }
    const wrong = await get(server, "/db/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: "wrong-token", next: "/db/table/items" }),
    });
    assertEquals(wrong.status, 401);
    const ok = await get(server, "/db/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, next: "/db/table/items" }),
    });
    assertEquals(ok.status, 303);
    assertEquals(ok.headers.get("location"), "/db/table/items");
    const cookie = ok.headers.get("set-cookie")!;
    assertMatch(cookie, /HttpOnly/);
    assertMatch(cookie, /SameSite=Strict/);
    assert(!cookie.includes(token));
    const items = await get(server, "/db/table/items", {
      headers: { Cookie: cookie.split(";")[0] },
    });
    assertEquals(items.status, 200);
    assertMatch(items.text, /apple/);
    // An open redirect is not on offer.
    const away = await get(server, "/db/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, next: "//evil.example/" }),
    });
    assertEquals(away.headers.get("location"), "/");
  } finally {
    await server.close();
  }
});

Deno.test("pages: courier's own state offers the operator's saved queries, which run", async () => {
  const { MIGRATIONS } = await import("../../src/store/migrations.ts");
  const { path, db } = await dbOf(MIGRATIONS.flat().join(";\n") + ";");
  db.exec(
    `INSERT INTO runs (feed, started_at, finished_at, outcome, fetched, new, sent, failed, skipped, error)
    VALUES ('f', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', 'ok', 1, 0, 0, 0, 0, NULL),
           ('f', '2026-01-02T00:00:00Z', '2026-01-02T00:00:01Z', 'failed', 0, 0, 0, 0, 0, 'HTTP 500'),
           ('f', '2026-01-03T00:00:00Z', '2026-01-03T00:00:01Z', 'failed', 0, 0, 0, 0, 0, 'HTTP 502');`,
  );
  db.close();
  const server = await startTestBrowser(path);
  try {
    const home = await get(server, "/");
    const links = all(
      home.doc,
      (e) => e.name === "a" && (e.attribs.href ?? "").startsWith("/db/query?sql="),
    );
    const titles = links.map(textOf);
    for (const t of ["Feeds failing now", "Latest posts per channel", "refused", "leases"]) {
      assert(titles.some((x) => x.includes(t)), `${t} in ${titles}`);
    }
    for (const a of links) {
      const h = await get(server, a.attribs.href);
      assertEquals(all(h.doc, isTag("p", "error")).length, 0, `${textOf(a)} runs`);
    }
    const failing = await get(server, links[0].attribs.href);
    assertEquals(pageRows(failing)[0].cells, [
      "f",
      "2026-01-03T00:00:01Z",
      "HTTP 502",
      "2026-01-02T00:00:00Z",
    ]);
    // Another database: no saved queries.
    const other = await startTestBrowser(await makeFixtureDb());
    try {
      assert(!(await get(other, "/")).text.includes("Feeds failing now"));
    } finally {
      await other.close();
    }
  } finally {
    await server.close();
  }
});
