import assert from "node:assert/strict";
import { History } from "../../src/browse/http/history.ts";

Deno.test("history: keeps the last `limit` calls, oldest first, as they wrap around", () => {
  let t = 0;
  const h = new History(3, () => new Date(Date.UTC(2026, 0, 1, 0, 0, t++)));
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
