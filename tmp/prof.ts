import Database from "libsql";
import { startTestBrowser } from "../tests/support/browse_fixtures.ts";
const path = await Deno.makeTempDir() + "/b.db";
const db = new Database(path);
db.exec(`CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL, note TEXT);
    INSERT INTO bench SELECT value, 'item ' || value, value * 7 % 1000, value / 3.0,
      printf('%.40c', 'n') FROM generate_series(1, 100000);`);
db.close();
const s = await startTestBrowser(path);
const t = async (p: string) => { const t0 = performance.now(); const r = await fetch(new URL(p, s.url)); await r.text(); return (performance.now() - t0).toFixed(1); };
for (let i = 0; i < 3; i++) {
  console.log("page", await t("/db/table/bench"), "p20", await t("/db/table/bench?size=20"), "p5000", await t("/db/table/bench?size=20&after=%5B99980%5D&page=5000"),
    "api count", await t("/api/query?query=" + encodeURIComponent("SELECT count(*) FROM (SELECT 1 FROM bench LIMIT 100001)")),
    "api shape", await t("/api/query?query=" + encodeURIComponent(`SELECT m.type, m.sql, l.wr, l.strict, c.name FROM sqlite_schema m LEFT JOIN pragma_table_list(m.name) l ON l.schema = 'main' LEFT JOIN pragma_table_xinfo(m.name) c WHERE m.type IN ('table', 'view') AND m.name = 'bench'`)),
    "api rows", await t("/api/query?query=" + encodeURIComponent("SELECT rowid, typeof(rowid), * FROM bench ORDER BY rowid LIMIT 101")),
    "api fk", await t("/api/query?query=" + encodeURIComponent(`SELECT f.id FROM pragma_foreign_key_list('bench') f`)),
    "home", await t("/"));
}
await s.close();
