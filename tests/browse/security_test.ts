import assert from "node:assert/strict";
import { BrowseError, startBrowser } from "../../src/browse/http/server.ts";
import { api, makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";

Deno.test("security: bearer token, Host check, Origin check, CORS", async (t) => {
  const path = await makeFixtureDb();
  const token = "s3cret-token-value";
  const b = await startTestBrowser(path, { token, cors: ["http://allowed.example"] });
  const auth = { Authorization: `Bearer ${token}` };
  try {
    await t.step("401 without or with a wrong token, 200 with it", async () => {
      const none = await api(b, "/api/tables");
      assert.equal(none.status, 401);
      assert.match(none.headers.get("www-authenticate") ?? "", /Bearer/);
      assert.ok(!none.text.includes(token));
      const wrong = await api(b, "/api/tables", { headers: { Authorization: "Bearer nope" } });
      assert.equal(wrong.status, 401);
      const ok = await api(b, "/api/tables", { headers: auth });
      assert.equal(ok.status, 200);
      const history = await api(b, "/api/history");
      assert.equal(history.status, 401, "every API route needs the token");
      // The pages ask for the token with a sign-in form, which holds no data.
      const page = await api(b, "/");
      assert.equal(page.status, 401);
      assert.match(page.text, /Token needed/);
      assert.ok(!page.text.includes("/db/table/"), "no table list before signing in");
    });

    await t.step("a foreign Host header (DNS rebinding) is refused", async () => {
      // fetch() sets Host from the URL, so speak HTTP/1.1 directly.
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: b.port });
      const req = `GET /api/tables HTTP/1.1\r\nHost: evil.example:${b.port}\r\n` +
        `Authorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;
      await conn.write(new TextEncoder().encode(req));
      const text = await new Response(conn.readable).text();
      assert.match(text, /^HTTP\/1\.1 403/);
      assert.match(text, /Host is not allowed/);
      const local = await api(b, `http://localhost:${b.port}/api/tables`, { headers: auth });
      assert.equal(local.status, 200, "localhost is fine on a loopback bind");
    });

    await t.step("cross-origin POSTs are refused unless --cors allows the origin", async () => {
      const post = (origin: string) =>
        api(b, "/api/query", {
          method: "POST",
          headers: { ...auth, Origin: origin, "Content-Type": "text/plain" },
          body: "select 1",
        });
      const evil = await post("http://evil.example");
      assert.equal(evil.status, 403);
      assert.match((evil.body as { error: string }).error, /cross-origin/);
      const same = await post(`http://127.0.0.1:${b.port}`);
      assert.equal(same.status, 200);
      const allowed = await post("http://allowed.example");
      assert.equal(allowed.status, 200);
      assert.equal(allowed.headers.get("access-control-allow-origin"), "http://allowed.example");
      const cross = await api(b, "/api/tables", {
        headers: { ...auth, "Sec-Fetch-Site": "cross-site" },
      });
      assert.equal(cross.status, 403);
    });

    await t.step("CORS preflight only for the allowed origin", async () => {
      const pre = await api(b, "/api/query", {
        method: "OPTIONS",
        headers: { Origin: "http://allowed.example", "Access-Control-Request-Method": "POST" },
      });
      assert.equal(pre.status, 204);
      assert.match(pre.headers.get("access-control-allow-headers") ?? "", /Authorization/);
      const bad = await api(b, "/api/query", {
        method: "OPTIONS",
        headers: { Origin: "http://evil.example", "Access-Control-Request-Method": "POST" },
      });
      assert.equal(bad.status, 403);
    });
  } finally {
    await b.close();
  }
});

Deno.test("security: a non-loopback bind without a token is refused at start", async () => {
  const path = await makeFixtureDb();
  await assert.rejects(
    () =>
      startBrowser({
        database: path,
        label: "fixture.db",
        write: false,
        host: "0.0.0.0",
        port: 0,
        timeoutMs: 1000,
        maxRows: 10,
        cors: [],
        workers: 1,
      }),
    (e: unknown) => e instanceof BrowseError && /without a token/.test(e.message),
  );
});

Deno.test("security: startBrowser refuses --cors '*' without a token and unusable tokens", async () => {
  const path = await makeFixtureDb();
  const start = (overrides: { cors?: string[]; token?: string }) =>
    startBrowser({
      database: path,
      label: "fixture.db",
      write: true,
      host: "127.0.0.1",
      port: 0,
      timeoutMs: 1000,
      maxRows: 10,
      cors: [],
      workers: 1,
      ...overrides,
    });
  const cases: [{ cors?: string[]; token?: string }, RegExp][] = [
    [{ cors: ["*"] }, /--cors '\*' needs a token/],
    [{ cors: ["http://a.example", "*"] }, /--cors '\*' needs a token/],
    [{ token: "short" }, /at least 8 characters/],
    [{ token: "has a space" }, /the token may hold only/],
    [{ token: 'quote"token' }, /the token may hold only/],
  ];
  for (const [overrides, pattern] of cases) {
    await assert.rejects(
      () => start(overrides),
      (e: unknown) =>
        e instanceof BrowseError && pattern.test(e.message) &&
        (overrides.token === undefined || !e.message.includes(overrides.token)),
      JSON.stringify(overrides),
    );
  }
  const b = await start({ cors: ["*"], token: "s3cret-token-value" });
  await b.close();
});

Deno.test("security: an unopenable database is a start-up error without a stack", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_bad_" });
  const path = `${dir}/not-a-db.db`;
  await Deno.writeTextFile(path, "this is not sqlite ".repeat(100));
  const b = await startTestBrowser(path).catch((e) => e);
  if (b instanceof Error) {
    assert.ok(b instanceof BrowseError);
    return;
  }
  try {
    const r = await api(b, "/api/tables");
    assert.equal(r.status, 400);
    assert.match((r.body as { error: string }).error, /not a database/);
    assert.ok(!r.text.includes(dir));
  } finally {
    await b.close();
  }
});
