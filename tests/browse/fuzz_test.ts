import assert from "node:assert/strict";
import { fileHash, makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";

/**
 * Random SQL and API requests from pieces an attacker would combine, against a read-only server
 * whose database sits next to a secret file. Seeded: the seed is printed, and `FUZZ_SEED=n`
 * replays a run.
 */

const REQUESTS = 400;
const WORKERS = 2;

/** mulberry32: small, fast, good enough to pick pieces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("fuzz: random SQL and paths never answer 500, never read a file, never change the database", async () => {
  const seed = Number(Deno.env.get("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`FUZZ_SEED=${seed}`);
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const some = (n: number, f: () => string) =>
    Array.from({ length: 1 + Math.floor(random() * n) }, f);

  const dir = await Deno.makeTempDir({ prefix: "browse_fuzz_" });
  const path = await makeFixtureDb(dir);
  const secretPath = `${dir}/secret.txt`;
  const secret = `secret-${crypto.randomUUID()}`;
  await Deno.writeTextFile(secretPath, secret);
  const before = await fileHash(path);

  const functions = [
    `readfile('${secretPath}')`,
    `writefile('${dir}/out.txt', 'x')`,
    `load_extension('${dir}/x.so')`,
    `sha3_query('SELECT readfile(''${secretPath}'')')`,
    "fts3_tokenizer('simple')",
    "sqlite_attach(':memory:', 'm', NULL)",
    "edit('x')",
    "upper(name)",
    "json_object('a', 1)",
    "zeroblob(100)",
    "printf('%.*c', 10, 'x')",
    "CAST(x'ff' AS TEXT)",
    "x'ff00c3'",
    "hex(randomblob(4))",
    "count(*)",
    "'é\u202Etxt'",
    "'\u{1F600}'",
    "'\uD800'",
  ];
  const tables = [
    `fsdir('${dir}')`,
    `fsdir('${secretPath}')`,
    "sqlite_dbpage",
    "sqlite_stmt",
    "pragma_database_list",
    "pragma_hard_heap_limit(1000000)",
    "pragma_cache_size(1)",
    "json_each('[1,2]')",
    "json_tree('{\"a\":1}')",
    "generate_series(1, 3)",
    "pragma_table_info('items')",
    "items",
    "kv",
    '"we""ird; name"',
    "cheap",
    "sqlite_schema",
    "[a/b]",
    "`ünïcødé`",
  ];
  const tricks = [
    "$a(')",
    "?1",
    ":x",
    "@y",
    "$a::b(')",
    "#z",
    "?",
    "-- '\n",
    "/* ' */",
    "/*",
    "'",
    '"',
    "`",
    "[",
    "x'",
    ";",
    "\u00A0",
    "\v",
  ];
  const pragmas = [
    "hard_heap_limit=1000000",
    "hard_heap_limit",
    "cache_size=1",
    "main.cache_size(5)",
    "writable_schema=ON",
    "query_only=1",
    "foreign_keys=OFF",
    "soft_heap_limit=1",
    "database_list",
    "table_info(items)",
    "integrity_check",
    "user_version=5",
    "journal_mode=DELETE",
    "temp_store_directory='/tmp'",
    "[cache_size]=3",
  ];
  const heads = ["", "EXPLAIN ", "EXPLAIN QUERY PLAN ", "/**/", "-- c\n", "explain /* x */ "];
  const statement = (): string => {
    const head = pick(heads);
    switch (Math.floor(random() * 9)) {
      case 0:
        return `${head}PRAGMA ${pick(pragmas)}`;
      case 1:
        return `${head}SELECT ${some(3, () => pick(functions)).join(", ")} FROM ${pick(tables)}`;
      case 2:
        return `${head}SELECT ${pick(tricks)} AS x, ${pick(functions)} FROM ${pick(tables)} --'`;
      case 3:
        return `${head}${pick(tricks)}${pick(tricks)} SELECT ${pick(functions)} ${pick(tricks)}`;
      case 4:
        return pick([
          `ATTACH '${dir}/other.db' AS o`,
          "ATTACH ':memory:' AS m",
          `VACUUM INTO '${dir}/copy.db'`,
          "BEGIN",
          "SAVEPOINT s",
          "COMMIT",
          "INSERT INTO items (name) VALUES ('x')",
          "DELETE FROM items",
          "CREATE TABLE t (a)",
          "DROP TABLE kv",
        ]);
      case 5:
        return `${head}WITH q AS (SELECT * FROM ${pick(tables)}) SELECT ${pick(functions)} FROM q`;
      case 6:
        return `SELECT ${pick(functions)}; ${head}PRAGMA ${pick(pragmas)}`;
      case 7:
        return some(6, () => pick([...tricks, ...functions, ...tables, "SELECT", "FROM", ","]))
          .join(" ");
      default:
        return `${head}SELECT * FROM ${pick(tables)} WHERE ${pick(tricks)} = ${pick(functions)}`;
    }
  };
  const paths = [
    "/api/query",
    "/api/explain",
    "/api/info",
    "/api/tables",
    "/api/tables/items",
    "/api/tables/%69tems/indexes",
    "/api/tables/" + encodeURIComponent(secretPath),
    "/api/tables/..%2F..%2Fetc%2Fpasswd",
    "/api/history",
    "/%61pi/query",
    "/api/query/",
    "/API/query",
  ];

  const b = await startTestBrowser(path, { workers: WORKERS });
  const statuses = new Map<number, number>();
  try {
    for (let i = 0; i < REQUESTS; i++) {
      const sql = statement();
      const route = random() < 0.75 ? pick(["/api/query", "/api/explain"]) : pick(paths);
      const format = pick(["", "", "json", "csv", "xml"]);
      const params = pick([undefined, [1], { x: "a", y: 2 }, [{ $base64: true, encoded: "/w==" }]]);
      let res: Response;
      if (random() < 0.5) {
        const q = new URLSearchParams({ query: sql });
        if (format) q.set("format", format);
        if (params) q.set("params", JSON.stringify(params));
        res = await fetch(new URL(`${route}?${q}`, b.url));
      } else {
        const type = pick(["application/json", "text/plain", "application/x-www-form-urlencoded"]);
        const body = type === "application/json"
          ? JSON.stringify({ query: sql, params, ...(format ? { format } : {}) })
          : type === "text/plain"
          ? sql
          : new URLSearchParams({ query: sql, ...(format ? { format } : {}) }).toString();
        res = await fetch(new URL(route, b.url), {
          method: "POST",
          headers: { "Content-Type": type },
          body,
        });
      }
      const what = `seed ${seed}, request ${i}: ${route} ${format} ${JSON.stringify(sql)}`;
      let text: string;
      try {
        text = await res.text();
      } catch (error) {
        throw new Error(`${what}: the answer broke off (${error})`);
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      assert.notEqual(res.status, 500, `${what}: ${text}`);
      assert.ok(!text.includes(secret), `${what}: the secret file was read`);
      assert.ok(!text.includes(dir + "/fixture.db"), `${what}: a server path leaked`);
    }
    console.log("statuses:", JSON.stringify(Object.fromEntries(statuses)));
    // The generator reaches both sides: answers and refusals.
    assert.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(403) ?? 0) > 0);
    for (let i = 0; i < WORKERS * 3; i++) {
      const res = await fetch(new URL("/api/query?query=SELECT+1", b.url));
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).rows, [[1]], "every worker still answers");
    }
  } finally {
    await b.close();
  }
  assert.equal(await fileHash(path), before, "the database file is unchanged");
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  assert.deepEqual(left, ["fixture.db", "secret.txt"], "no file was written");
});
