import assert from "node:assert/strict";
import { Hono } from "hono";
import { HttpError } from "../../src/browse/http/http_error.ts";
import { parseJson, parseParams, queryInput } from "../../src/browse/http/input.ts";
import { api, makeFixtureDb, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";

const refused = (pattern: RegExp) => (e: unknown) =>
  e instanceof HttpError && e.status === 400 && pattern.test(e.message);

Deno.test("parseJson: integer literals stay integers, exact beyond 2^53", () => {
  assert.deepEqual(parseJson("[9007199254740993, -9007199254740993, 9007199254740991]", ""), [
    9007199254740993n,
    -9007199254740993n,
    9007199254740991n,
  ]);
  // Written with a fraction or an exponent, a number says it is a double.
  assert.deepEqual(parseJson("[9007199254740993.0, 1e20, 1.5]", ""), [
    9007199254740992,
    1e20,
    1.5,
  ]);
  assert.deepEqual(parseJson('{"a": {"b": [18446744073709551616]}}', ""), {
    a: { b: [18446744073709551616n] },
  });
});

Deno.test("parseParams: integers go to the worker as exact $int decimals, reals as numbers", () => {
  assert.deepEqual(
    parseParams(
      "[9007199254740993, -9007199254740993, 9223372036854775807, -9223372036854775808, 42, 4.5]",
    ),
    [
      { $int: "9007199254740993" },
      { $int: "-9007199254740993" },
      { $int: "9223372036854775807" },
      { $int: "-9223372036854775808" },
      { $int: "42" },
      4.5,
    ],
  );
  assert.deepEqual(parseParams('{"id": -9007199254740995, "n": 1, "t": true}'), {
    id: { $int: "-9007199254740995" },
    n: { $int: "1" },
    t: 1,
  });
});

Deno.test("parseParams: an integer literal beyond 64 bits is a 400 naming the parameter", () => {
  assert.throws(() => parseParams("[1, 9223372036854775808]"), refused(/^params\[1\]: /));
  assert.throws(
    () => parseParams('{"big": -9223372036854775809}'),
    refused(/^params\.big: -9223372036854775809 is outside the 64-bit integer range/),
  );
  assert.throws(() => parseParams("[1e400]"), refused(/^params\[0\]: .*out of range/));
  // As a double it is what the caller wrote: no exactness was promised.
  assert.deepEqual(parseParams("[1e30, 12345678901234567890.5]"), [1e30, 12345678901234567890.5]);
});

Deno.test("queryInput: a JSON body's params keep their exact integers", async () => {
  const app = new Hono();
  app.on(["GET", "POST"], "/q", async (c) => c.json(await queryInput(c, 1024)));
  app.onError((e) => new Response((e as Error).message, { status: 400 }));
  const post = (body: string, type = "application/json") =>
    app.request("/q", { method: "POST", headers: { "Content-Type": type }, body });
  const json = await post('{"query": "select ?1", "params": [9007199254740993]}');
  assert.deepEqual(await json.json(), {
    query: "select ?1",
    params: [{ $int: "9007199254740993" }],
  });
  const form = await post(
    "query=select+%3F1&params=%5B-9007199254740993%5D",
    "application/x-www-form-urlencoded",
  );
  assert.deepEqual((await form.json()).params, [{ $int: "-9007199254740993" }]);
  const get = await app.request("/q?query=select+1&params=%5B9007199254740993%5D");
  assert.deepEqual((await get.json()).params, [{ $int: "9007199254740993" }]);
  const big = await post('{"query": "select ?1", "params": [99999999999999999999]}');
  assert.equal(big.status, 400);
  assert.match(await big.text(), /params\[0\]/);
  // Text that is not JSON, or JSON that is not an array or object: one clear 400 each.
  for (
    const [body, message] of [
      ["{query", "the body is not valid JSON"],
      ['{"query": "select 1", "params": "[1,"}', "params must be a JSON array or object"],
      ['{"query": "select 1", "params": "5"}', "params must be a JSON array or object"],
    ]
  ) {
    const res = await post(body);
    assert.equal(res.status, 400, body);
    assert.equal(await res.text(), message);
  }
  assert.throws(() => parseParams("[1,"), refused(/^params must be a JSON array or object$/));
});

Deno.test("input through the server: a parameter beyond 64 bits is a 400 that names it", async () => {
  const b = await startTestBrowser(await makeFixtureDb());
  try {
    for (
      const [body, pattern] of [
        ['{"query": "select ?1", "params": [99999999999999999999]}', /^params\[0\]: /],
        ['{"query": "select :n", "params": {"n": -9223372036854775809}}', /^params\.n: /],
        ['{"query": "select ?1", "params": [1e400]}', /^params\[0\]: /],
      ] as const
    ) {
      const r = await api(b, "/api/query", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      assert.equal(r.status, 400, body);
      assert.match((r.body as { error: string }).error, pattern);
    }
    // In range and safe: bound as before.
    const small = await postQuery(b, "select ?1 + 1", [41]);
    assert.deepEqual((small.body as { rows: unknown }).rows, [[42]]);
  } finally {
    await b.close();
  }
});

Deno.test("input through the server: integers beyond 2^53 bind exactly, as integers", async () => {
  const b = await startTestBrowser(await makeFixtureDb());
  try {
    // Written by hand: JSON.stringify would round the number before it left the test.
    const body = '{"query": "SELECT typeof(?1), ?1, (SELECT name FROM items WHERE qty = ?1)", ' +
      '"params": [9007199254740993]}';
    const r = await api(b, "/api/query", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((r.body as { rows: unknown }).rows, [[
      "integer",
      "9007199254740993",
      "apple",
    ]]);
    const get = await api(
      b,
      `/api/query?query=${encodeURIComponent("SELECT ?1 - 1")}&params=[-9007199254740993]`,
    );
    assert.deepEqual((get.body as { rows: unknown }).rows, [["-9007199254740994"]]);
  } finally {
    await b.close();
  }
});
