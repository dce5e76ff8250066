import assert from "node:assert/strict";
import { createApp } from "../../src/browse/http/app.ts";
import { api, fileHash, makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";
import { type RawAnswer, rawRequest } from "../support/raw_http.ts";

const TOKEN = "s3cret-token-value";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

/** Every API route, in its canonical spelling, with what it needs to answer 200. */
const ROUTES = [
  "/api/info",
  "/api/tables",
  "/api/tables/items",
  "/api/tables/items/indexes",
  "/api/query",
  "/api/explain",
  "/api/history",
];
const QUERY = "?query=SELECT+1";
const withQuery = (path: string, route: string) =>
  route.endsWith("/query") || route.endsWith("/explain") ? path + QUERY : path;

const hex = (ch: string, upper: boolean) => {
  const h = ch.charCodeAt(0).toString(16);
  return "%" + (upper ? h.toUpperCase() : h);
};

/**
 * Other spellings of a path an attacker tries: percent-encoded letters in each segment (each
 * one, and all; lower and upper hex), double encoding, case, dot segments (plain and
 * encoded), doubled and trailing slashes, a backslash, a `;` parameter.
 */
function spellings(path: string): string[] {
  const segs = path.split("/").slice(1);
  const join = (s: string[]) => "/" + s.join("/");
  const out = new Set<string>();
  segs.forEach((seg, i) => {
    const at = (replacement: string) => join(segs.map((s, k) => k === i ? replacement : s));
    for (const upper of [false, true]) {
      for (let j = 0; j < seg.length; j++) {
        out.add(at(seg.slice(0, j) + hex(seg[j], upper) + seg.slice(j + 1)));
      }
      out.add(at([...seg].map((ch) => hex(ch, upper)).join("")));
    }
    out.add(at("%25" + seg.charCodeAt(0).toString(16) + seg.slice(1)));
    out.add(at(seg.toUpperCase()));
    out.add(at(seg[0].toUpperCase() + seg.slice(1)));
    out.add(at(seg + ";x"));
    if (i > 0) {
      const before = segs.slice(0, i), after = segs.slice(i);
      out.add(join([...before, ".", ...after]));
      out.add(join([...before, "%2e", ...after]));
      out.add(join([...before, "..", segs[i - 1], ...after]));
      out.add(join([...before, "%2E%2E", segs[i - 1], ...after]));
      out.add(join(before) + "//" + after.join("/"));
      out.add(join(before) + "\\" + after.join("/"));
    }
  });
  out.add(path.toUpperCase());
  out.add("/" + segs.map((s) => s[0].toUpperCase() + s.slice(1)).join("/"));
  out.add(path + "/");
  out.add("/" + path);
  out.add(path + "%2F");
  out.delete(path);
  return [...out];
}

function assertRefused(r: RawAnswer, what: string, allowed: number[]) {
  assert.ok(allowed.includes(r.status), `${what}: ${r.status} ${r.body.slice(0, 120)}`);
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    assert.fail(`${what}: not a JSON error: ${r.body.slice(0, 120)}`);
  }
  assert.deepEqual(Object.keys(body as object), ["error"], what);
  assertSecurityHeaders(r.headers, what);
}

function assertSecurityHeaders(h: Headers, what: string) {
  assert.equal(h.get("x-content-type-options"), "nosniff", what);
  assert.equal(h.get("cache-control"), "no-store", what);
  assert.equal(h.get("referrer-policy"), "no-referrer", what);
  assert.equal(h.get("x-frame-options"), "DENY", what);
}

Deno.test("guards: the spellings generator covers the classes it claims", () => {
  const s = spellings("/api/query");
  for (
    const expected of [
      "/%61pi/query",
      "/ap%69/query",
      "/api/%71uery",
      "/%61%70%69/query",
      "/%2561pi/query",
      "/api/query/",
      "//api/query",
      "/api//query",
      "/api/./query",
      "/api/%2e/query",
      "/api/../api/query",
      "/api/%2E%2E/api/query",
      "/API/query",
      "/API/QUERY",
      "/Api/Query",
    ]
  ) {
    assert.ok(s.includes(expected), expected);
  }
  const info = spellings("/api/info");
  assert.ok(info.includes("/api/i%6efo") && info.includes("/api/i%6Efo"), "both hex cases");
  assert.ok(!s.includes("/api/query"), "the canonical spelling is tested apart");
});

Deno.test("guards: every route in every spelling needs the token; the canonical one works with it", async () => {
  const path = await makeFixtureDb();
  const b = await startTestBrowser(path, { token: TOKEN, write: true });
  try {
    let tried = 0;
    for (const route of ROUTES) {
      const ok = await rawRequest(b.port, "GET", withQuery(route, route), AUTH);
      assert.equal(ok.status, 200, `${route} with the token: ${ok.body.slice(0, 120)}`);
      assertSecurityHeaders(ok.headers, route);
      const bare = await rawRequest(b.port, "GET", withQuery(route, route));
      assertRefused(bare, route, [401]);
      assert.match(bare.headers.get("www-authenticate") ?? "", /^Bearer realm="courier browse"/);

      for (const spelled of spellings(route)) {
        const target = withQuery(spelled, route);
        for (const method of ["GET", "HEAD", "POST"]) {
          const body = method === "POST" ? "SELECT 1" : "";
          const r = await rawRequest(b.port, method, target, {}, body);
          if (method === "HEAD") {
            assert.ok([401, 404].includes(r.status), `HEAD ${target}: ${r.status}`);
            assert.equal(r.body, "", `HEAD ${target}`);
          } else assertRefused(r, `${method} ${target}`, [401, 404]);
          tried++;
        }
        // With the token a spelling is served (the router decoded it to the route) or is a
        // 404; never a failure of the server.
        const authed = await rawRequest(b.port, "GET", target, AUTH);
        assert.ok([200, 404].includes(authed.status), `${target} with token: ${authed.status}`);
      }
    }
    // Absolute-form request lines name the authority in the URL itself.
    const absolute = await rawRequest(b.port, "GET", `http://127.0.0.1:${b.port}/%61pi/info`);
    assertRefused(absolute, "absolute-form", [401]);
    const foreign = await rawRequest(b.port, "GET", "http://evil.example/api/info", AUTH);
    assertRefused(foreign, "absolute-form with a foreign authority", [403]);
    // Unknown paths are refused too, never served: deny by default.
    for (const unknown of ["/api/nope", "/%61pi/nope", "/nope", "/api", "/api/", "/%2e%2e/etc"]) {
      assertRefused(await rawRequest(b.port, "GET", unknown), unknown, [401, 404]);
    }
    assert.ok(tried > 500, `tried ${tried} spellings`);
  } finally {
    await b.close();
  }
});

Deno.test("guards: a cross-site POST reaches no route of a --write server in any spelling", async () => {
  const path = await makeFixtureDb();
  const before = await fileHash(path);
  // Loopback and no token: the server a victim's browser can reach, so only Origin stands.
  const b = await startTestBrowser(path, { write: true });
  const insert = "INSERT INTO x VALUES (7)";
  const crossSite: Record<string, string>[] = [
    { Origin: "http://evil.example" },
    { Origin: "null" },
    { "Sec-Fetch-Site": "cross-site" },
    { "Sec-Fetch-Site": "same-site" },
    { Origin: "http://evil.example", "Sec-Fetch-Site": "same-origin" },
  ];
  try {
    for (const route of ["/api/query", "/api/explain"]) {
      for (const [n, spelled] of [route, ...spellings(route)].entries()) {
        // Every spelling with a foreign Origin; the canonical and a few with every header set.
        for (const extra of n < 4 ? crossSite : crossSite.slice(0, 1)) {
          const r = await rawRequest(
            b.port,
            "POST",
            spelled,
            { "Content-Type": "text/plain", ...extra },
            insert,
          );
          assertRefused(r, `POST ${spelled} ${JSON.stringify(extra)}`, [403, 404]);
        }
      }
    }
    assert.equal(await fileHash(path), before, "the file is unchanged");
    // The same statement from the same origin is served, so the refusals above were the guard.
    const honest = await rawRequest(b.port, "POST", "/api/query", {
      "Content-Type": "text/plain",
      Origin: `http://127.0.0.1:${b.port}`,
    }, insert);
    assert.equal(honest.status, 200, honest.body);
    assert.equal(JSON.parse(honest.body).stats.rows_affected, 1);
  } finally {
    await b.close();
  }
});

Deno.test("guards: every answer carries the security headers, errors included", async () => {
  const path = await makeFixtureDb();
  const b = await startTestBrowser(path, { token: TOKEN });
  try {
    const cases: [string, Promise<{ status: number; headers: Headers }>, number][] = [
      ["200", api(b, "/api/info", { headers: AUTH }), 200],
      ["200 download", api(b, "/api/query?query=select+1&format=csv", { headers: AUTH }), 200],
      ["400", api(b, "/api/query?query=selec", { headers: AUTH }), 400],
      ["401", api(b, "/api/info"), 401],
      ["401 bad scheme", api(b, "/api/info", { headers: { Authorization: "Basic eDp5" } }), 401],
      [
        "403 origin",
        api(b, "/api/info", { headers: { ...AUTH, Origin: "http://evil.example" } }),
        403,
      ],
      ["404", api(b, "/api/nope", { headers: AUTH }), 404],
      ["404 outside /api", api(b, "/nope"), 404],
      ["404 table", api(b, "/api/tables/nope", { headers: AUTH }), 404],
      [
        "413",
        api(b, "/api/query", { method: "POST", headers: AUTH, body: "x".repeat(1024 * 1024 + 1) }),
        413,
      ],
      [
        "413 chunked",
        api(b, "/api/query", {
          method: "POST",
          headers: AUTH,
          body: ReadableStream.from([new TextEncoder().encode("x".repeat(1024 * 1024 + 1))]),
        }),
        413,
      ],
      // The pages ask for the token with a sign-in form (pages_test.ts).
      ["page", api(b, "/"), 401],
    ];
    for (const [what, pending, status] of cases) {
      const r = await pending;
      assert.equal(r.status, status, what);
      assertSecurityHeaders(r.headers, what);
    }
    const host = await rawRequest(b.port, "GET", "/api/info", { ...AUTH, Host: "evil.example" });
    assert.equal(host.status, 403);
    assertSecurityHeaders(host.headers, "403 host");
  } finally {
    await b.close();
  }
});

Deno.test("guards: every route is a page or sits in the /api group behind the guards", () => {
  const app = createApp({
    pool: { run: () => Promise.reject(new Error("not used")) },
    host: "127.0.0.1",
    port: 8080,
    token: TOKEN,
    cors: [],
    maxRows: 10,
  });
  const handlers = app.routes.filter((r) => r.method !== "ALL");
  for (const r of handlers) {
    assert.ok(
      r.path === "/" || r.path.startsWith("/api/") || r.path.startsWith("/db/"),
      `${r.method} ${r.path}`,
    );
  }
  const guards = app.routes.filter((r) => r.method === "ALL");
  const names = (path: string) => guards.filter((g) => g.path === path).map((g) => g.handler.name);
  assert.deepEqual(names("/*"), ["securityHeaders", "hostGuard"]);
  assert.deepEqual(names("/api/*"), ["corsGuard", "originGuard", "bearerAuth", "bodyLimit"]);
  // With a token the pages need the sign-in cookie, except the sign-in itself.
  assert.deepEqual(names("/"), ["sessionGuard"]);
  assert.deepEqual(names("/db/*"), ["sessionGuard"]);
  const unguarded = handlers.filter((r) => r.path.startsWith("/db/") && r.path !== "/db/login");
  for (const r of unguarded) {
    const at = app.routes.indexOf(r);
    assert.ok(app.routes.findIndex((g) => g.path === "/db/*") < at, `${r.path} is guarded`);
  }
  // Middleware registered after a handler would not guard it.
  const lastGuard = Math.max(...guards.map((g) => app.routes.indexOf(g)));
  const firstApi = app.routes.findIndex((r) => r.method !== "ALL" && r.path.startsWith("/api/"));
  assert.ok(lastGuard < firstApi);
});
