import Database from "npm:libsql@0.5.29";
import {
  type BrowseOptions,
  type RunningBrowser,
  startBrowser,
} from "../../src/browse/http/server.ts";

/** A fresh SQLite file with the shapes the browser must handle; returns its path. */
export async function makeFixtureDb(dir?: string): Promise<string> {
  const path = `${dir ?? await Deno.makeTempDir({ prefix: "browse_" })}/fixture.db`;
  const db = new Database(path);
  db.exec(`
    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'x', qty INTEGER, data BLOB, price REAL);
    INSERT INTO items VALUES (1, 'apple', 9007199254740993, x'00ff10', 1.5);
    INSERT INTO items VALUES (2, 'pear', -9007199254740993, NULL, NULL);
    INSERT INTO items VALUES (3, 'fig', 9007199254740991, x'', 0.25);
    CREATE INDEX items_name ON items(name);
    CREATE UNIQUE INDEX items_qty ON items(qty) WHERE qty IS NOT NULL;
    CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
    INSERT INTO kv VALUES ('a', '1'), ('b', '2');
    CREATE VIEW cheap AS SELECT id, name FROM items WHERE price < 1;
    CREATE TABLE "we""ird; name" (x INTEGER);
    INSERT INTO "we""ird; name" VALUES (42);
    CREATE TABLE "ünïcødé" (x TEXT);
    INSERT INTO "ünïcødé" VALUES ('ok');
    CREATE TABLE "a/b" (x INTEGER);
    CREATE TABLE x (y INTEGER);
    CREATE TABLE empty (a INTEGER, b TEXT);
  `);
  db.close();
  return path;
}

/** SHA-256 of a file, hex. */
export async function fileHash(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A browser on 127.0.0.1, a free port, two workers. */
export function startTestBrowser(
  database: string,
  overrides: Partial<BrowseOptions> = {},
): Promise<RunningBrowser> {
  return startBrowser({
    database,
    label: "fixture.db",
    write: false,
    host: "127.0.0.1",
    port: 0,
    timeoutMs: 5000,
    maxRows: 1000,
    cors: [],
    workers: 2,
    ...overrides,
  });
}

/** Calls the API; returns status, parsed JSON (or text) and headers. */
export async function api(
  browser: RunningBrowser,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const res = await fetch(new URL(path, browser.url), init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, body, text, headers: res.headers };
}

/** POSTs a JSON query. */
export function postQuery(
  browser: RunningBrowser,
  query: string,
  params?: unknown,
  path = "/api/query",
) {
  return api(browser, path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query, params }),
  });
}
