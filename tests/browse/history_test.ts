import assert from "node:assert/strict";
import { History, HISTORY_BYTES } from "../../src/browse/http/history.ts";
import { createApp } from "../../src/browse/http/app.ts";
import { AnswerBudget } from "../../src/browse/http/answer_budget.ts";
import { api, makeFixtureDb, postQuery, startTestBrowser } from "../support/browse_fixtures.ts";

Deno.test("history: keeps the last `limit` calls, oldest first, as they wrap around", () => {
  let t = 0;
  const h = new History(3, { now: () => Date.UTC(2026, 0, 1, 0, 0, t++) });
  assert.deepEqual(h.list(), []);
  h.add("q1", 1.23456, 1);
  h.add("q2", 2, 2);
  assert.deepEqual(h.list().map((e) => e.query), ["q1", "q2"]);
  assert.deepEqual(h.list()[0], {
    query: "q1",
    timestamp: "2026-01-01T00:00:00.000Z",
    duration_ms: 1.235,
    rows: 1,
  });
  for (const q of ["q3", "q4", "q5"]) h.add(q, 0, 0);
  assert.deepEqual(h.list().map((e) => e.query), ["q3", "q4", "q5"]);
  assert.equal(h.list()[2].timestamp, "2026-01-01T00:00:04.000Z");
  h.add("q6", 0, 0);
  assert.deepEqual(h.list().map((e) => e.query), ["q4", "q5", "q6"]);
});

Deno.test("history: holds at most HISTORY_BYTES of JSON; the oldest entries go first", () => {
  const h = new History(500, { now: () => 0 }, 10_000);
  const long = "SELECT 1 --" + "\x01".repeat(1000);
  for (let i = 0; i < 20; i++) h.add(`${long}${i}`, 1, 1);
  assert.ok(h.bytes <= 10_000, `${h.bytes}`);
  const kept = h.list().map((e) => e.query.slice(long.length));
  assert.ok(kept.length >= 1 && kept.length < 20, `${kept.length}`);
  assert.equal(kept.at(-1), "19");
  const answer = new TextDecoder().decode(concatBytes(h.pieces()));
  assert.deepEqual(JSON.parse(answer), h.list());
});

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

Deno.test("history: /api/history counts against the answer budget like a worker's answer", async () => {
  const history = new History(500);
  const long = "SELECT 1 --" + "\x01".repeat(99_989);
  for (let i = 0; i < 10; i++) history.add(long, 1, 1);
  const get = (limit: number) =>
    createApp({
      pool: { run: () => Promise.reject(new Error("no query here")) },
      host: "127.0.0.1",
      port: 8080,
      cors: [],
      maxRows: 1000,
      history,
      answers: new AnswerBudget(limit, 30_000),
    }).request("http://127.0.0.1:8080/api/history", { headers: { Host: "127.0.0.1:8080" } });
  const full = await get(1024 * 1024);
  assert.equal(full.status, 503, "an answer past the budget is refused, not built");
  assert.ok(full.headers.get("Retry-After"));
  await full.body?.cancel();
  // Room for it: held against the budget until read, then given back.
  const res = await get(64 * 1024 * 1024);
  assert.equal(res.status, 200);
  const entries = await res.json() as { query: string }[];
  assert.ok(entries.length >= 1 && entries.every((e) => e.query === long));
});

Deno.test("history: a real server's /api/history stays within HISTORY_BYTES after 40 queries of 100,000 characters", async () => {
  const b = await startTestBrowser(await makeFixtureDb(), { workers: 1 });
  try {
    const long = "SELECT 1 --" + "\x01".repeat(99_989);
    for (let i = 0; i < 40; i++) {
      const r = await postQuery(b, long);
      assert.equal(r.status, 200, r.text);
    }
    const res = await fetch(new URL("/api/history", b.url));
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.status, 200);
    // Before: every one of the 40 entries, 24 MB.
    assert.ok(bytes.length <= HISTORY_BYTES + 1024, `${bytes.length} bytes`);
    const entries = JSON.parse(new TextDecoder().decode(bytes)) as { query: string }[];
    assert.ok(entries.length >= 5, `${entries.length}`);
    assert.ok(entries.every((e) => e.query === long));
    assert.equal((await api(b, "/api/info")).status, 200);
  } finally {
    await b.close();
  }
});
