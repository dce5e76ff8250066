import assert from "node:assert/strict";
import { MAX_JSON_ANSWER_CHARS } from "../../src/browse/sql/encode_json.ts";
import {
  fileHash,
  makeFixtureDb,
  postQuery,
  startTestBrowser,
} from "../support/browse_fixtures.ts";
import { childPids, rss, startBrowseProcess } from "../support/browse_process.ts";

const MB = 1024 * 1024;

Deno.test("memory: SQLite's limits answer a clean 400, the byte cap truncates a JSON answer", async () => {
  const path = await makeFixtureDb();
  // What is tested is which limit answers, not how fast: on a busy machine building these
  // values took past the usual 5 s time limit, which then answered first (504).
  const b = await startTestBrowser(path, { workers: 1, timeoutMs: 60_000 });
  try {
    const zb = await postQuery(b, "SELECT zeroblob(999999999)");
    assert.equal(zb.status, 400, zb.text);
    // Past the value limit (64 MiB) before the heap limit (256 MiB): SQLite refuses it cleanly.
    assert.match((zb.body as { error: string }).error, /too big|out of memory/);
    // Five values of 60 MB at once, each under the value limit: past the heap limit, named.
    const columns = [1, 2, 3, 4, 5].map((i) => `length(printf('%.*c', 60000000, '${i}'))`);
    const heap = await postQuery(b, `SELECT ${columns.join(", ")}`);
    assert.equal(heap.status, 400, heap.text);
    assert.deepEqual(heap.body, {
      error: "out of memory: the query needs more than the worker's 256 MiB",
    });
    const big = await postQuery(
      b,
      "SELECT printf('%.*c', 1000000, 'x') AS s FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 480) SELECT value FROM s)",
    );
    assert.equal(big.status, 200);
    const body = big.body as { rows: string[][]; truncated: boolean; stats: { rows: number } };
    assert.equal(body.truncated, true);
    assert.ok(body.rows.length > 0 && body.rows.length < 480, `${body.rows.length} rows`);
    assert.equal(body.stats.rows, body.rows.length);
    assert.ok(big.text.length <= MAX_JSON_ANSWER_CHARS + 4096, `${big.text.length} chars`);
    // Three bytes of UTF-8 a character: the character cap still keeps the answer under the
    // pool's byte cap, so it is truncated, not refused.
    const wide = await postQuery(
      b,
      "SELECT replace(hex(zeroblob(500000)), '00', '界') AS s FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 40) SELECT value FROM s)",
    );
    assert.equal(wide.status, 200, wide.text.slice(0, 200));
    assert.equal((wide.body as { truncated: boolean }).truncated, true);
    const one = await postQuery(b, "SELECT 1");
    assert.deepEqual((one.body as { rows: unknown }).rows, [[1]], "the worker still answers");
  } finally {
    await b.close();
  }
});

Deno.test("memory: the 480 MB query keeps the worker's memory bounded", async () => {
  const path = await makeFixtureDb();
  const before = await fileHash(path);
  const server = await startBrowseProcess([path]);
  try {
    const url = (sql: string) => new URL(`/api/query?query=${encodeURIComponent(sql)}`, server.url);
    await (await fetch(url("SELECT 1"))).arrayBuffer();
    const workers = childPids(server.pid);
    const idle = workers.map((pid) => rss(pid).peak);
    const res = await fetch(
      url(
        "SELECT printf('%.*c', 1000000, 'x') FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 480) SELECT value FROM s)",
      ),
    );
    const text = await res.text();
    assert.equal(res.status, 200);
    assert.match(text, /"truncated":true\}$/);
    // Before the caps this grew a worker to 2.4 GB and the server to 1.9 GB.
    assert.ok(workers.length > 0);
    workers.forEach((pid, i) => {
      const growth = rss(pid).peak - idle[i];
      assert.ok(growth < 150 * MB, `worker peak +${Math.round(growth / MB)} MB`);
    });
    console.log(
      `480 MB query: answer ${Math.round(text.length / MB)} MB; worker peaks ${
        workers.map((p) => Math.round(rss(p).peak / MB)).join(", ")
      } MB; server now ${Math.round(rss(server.pid).now / MB)} MB`,
    );
  } finally {
    await server.stop();
  }
  assert.equal(await fileHash(path), before);
});
