import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { bounded } from "../support/deadline.ts";
import { events, nextEvent, startPoolServer } from "../support/pool_server.ts";
import { parseResponse, readToEnd, sendRaw } from "../support/raw_http.ts";

const ROWS = 100_000;

/** One read of at most 4 KB: the start of the response. */
async function readStart(conn: Deno.Conn): Promise<Uint8Array> {
  const buf = new Uint8Array(4096);
  const n = await conn.read(buf);
  return buf.slice(0, n ?? 0);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** A table whose CSV is about 12 MB: more than every buffer between worker and client holds. */
async function bigDb(): Promise<string> {
  const path = `${await Deno.makeTempDir({ prefix: "browse_dl_" })}/big.db`;
  const db = new Database(path);
  db.exec(`CREATE TABLE big (id INTEGER PRIMARY KEY, note TEXT);
    INSERT INTO big SELECT value, printf('%.100c', 'n') FROM generate_series(1, ${ROWS});`);
  db.close();
  return path;
}

const csvPath = (query: string) => `/api/query?format=csv&query=${encodeURIComponent(query)}`;

const ENDLESS_CSV =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n, printf('%.100c', 'n') FROM c";

/** The time limit of the slow-reader test: some forty times the query's own time alone. */
const LIMIT_MS = 8000;

Deno.test("download: a slow reader gets the whole file though reading outlasts the time limit", async () => {
  const path = await bigDb();
  // The stall bound is set past the reader's one long pause, so only the time limit is tried;
  // the limit leaves the query's own work (about 0.2 s alone) room on a loaded machine.
  const s = await startPoolServer(path, { timeoutMs: LIMIT_MS, stallMs: 4 * LIMIT_MS });
  try {
    const started = performance.now();
    const conn = await sendRaw(s.port, "GET", csvPath("SELECT id, note FROM big ORDER BY id"));
    const start = await readStart(conn);
    // The reader takes nothing more until the time limit has passed since the request: the
    // transfer outlasts it however fast or slow the machine is. Then it reads the rest.
    const pause = started + LIMIT_MS + 500 - performance.now();
    await new Promise((r) => setTimeout(r, Math.max(0, pause)));
    const rest = await readToEnd(conn);
    const res = parseResponse(concat(start, rest.bytes));
    assert.equal(res.status, 200);
    assert.ok(res.complete, "the chunked body ended with its terminating chunk");
    const lines = new TextDecoder().decode(res.body).split("\n").filter((l) => l !== "");
    assert.equal(lines.length, ROWS + 1);
    assert.match(lines[ROWS], new RegExp(`^"?${ROWS}"?,`));
  } finally {
    await s.close();
  }
});

Deno.test(
  "download: a client that stops reading is abandoned and its transfer fails",
  bounded(60_000, async (deadline) => {
    const path = await bigDb();
    const s = await startPoolServer(path, { timeoutMs: 600_000, stallMs: 300 });
    try {
      const running = nextEvent(s.pool, "run");
      const conn = await sendRaw(s.port, "GET", csvPath("SELECT id, note FROM big ORDER BY id"));
      const { pid } = await running;
      // Reads a little, then nothing: the worker is killed at the stall bound, not kept forever.
      const start = await readStart(conn);
      const killed = await deadline.within(
        "the stalled download's worker killed",
        nextEvent(s.pool, "killed"),
      );
      assert.deepEqual(killed, { type: "killed", pid, reason: "stalled" });
      const exit = await deadline.within("the killed worker's exit", s.pool.exitOf(pid));
      assert.equal(exit?.signal, "SIGKILL");
      // Reading on, the client gets what was sent, then a cut transfer: no terminating chunk.
      const rest = await deadline.within("the cut transfer's end", readToEnd(conn));
      const res = parseResponse(concat(start, rest.bytes));
      assert.equal(res.status, 200);
      assert.equal(res.complete, false);
      const lines = new TextDecoder().decode(res.body).split("\n").length;
      assert.ok(lines < ROWS, `only part of the file arrived (${lines} lines)`);
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "download: one cut by the time limit fails as a transfer",
  bounded(60_000, async (deadline) => {
    const path = await bigDb();
    const s = await startPoolServer(path, { timeoutMs: 500 });
    try {
      const killed = nextEvent(s.pool, "killed");
      const conn = await sendRaw(s.port, "GET", csvPath(ENDLESS_CSV));
      const { bytes } = await deadline.within("the timed-out transfer's end", readToEnd(conn));
      const kill = await deadline.within("the worker killed at the time limit", killed);
      assert.equal(kill.reason, "timeout");
      const res = parseResponse(bytes);
      assert.equal(res.status, 200);
      assert.equal(res.complete, false);
      assert.ok(res.body.length > 0);
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "download: one whose worker dies fails as a transfer",
  bounded(60_000, async (deadline) => {
    const path = await bigDb();
    const s = await startPoolServer(path, { timeoutMs: 600_000, stallMs: 600_000 });
    try {
      const running = nextEvent(s.pool, "run");
      const conn = await sendRaw(s.port, "GET", csvPath("SELECT id, note FROM big ORDER BY id"));
      const { pid } = await running;
      const start = await readStart(conn);
      const replaced = events(s.pool, "killed", 1);
      Deno.kill(pid, "SIGKILL");
      const rest = await deadline.within("the dead worker's transfer's end", readToEnd(conn));
      const res = parseResponse(concat(start, rest.bytes));
      assert.equal(res.status, 200);
      assert.equal(res.complete, false);
      const kills = await deadline.within("the dead worker replaced", replaced);
      assert.deepEqual(kills.map((k) => k.reason), ["failed"]);
    } finally {
      await s.close();
    }
  }),
);

Deno.test("download: one whose query fails after the head fails as a transfer", async () => {
  const path = await bigDb();
  const s = await startPoolServer(path, { timeoutMs: 60_000 });
  try {
    // An integer overflow at row 50,001: the head and 50,000 rows are out by then.
    const sql =
      "SELECT id, CASE WHEN id > 50000 THEN abs(-9223372036854775807 - 1) ELSE note END " +
      "FROM big ORDER BY id";
    const conn = await sendRaw(s.port, "GET", csvPath(sql));
    const res = parseResponse((await readToEnd(conn)).bytes);
    assert.equal(res.status, 200);
    assert.equal(res.complete, false);
    assert.ok(res.body.length > 0);
    // The worker itself is fine: no kill, it serves the next request.
    const next = await fetch(new URL("/api/query?query=SELECT+1", s.url));
    assert.deepEqual((await next.json()).rows, [[1]]);
    assert.equal(s.pool.pids.length, 2);
  } finally {
    await s.close();
  }
});

Deno.test(
  "download: three stalled downloads never hold the last worker; a cheap query is answered",
  bounded(60_000, async (deadline) => {
    const path = await bigDb();
    // A limit long enough for the waiting downloads to outlast the first on a loaded machine.
    const s = await startPoolServer(path, { timeoutMs: 60_000 });
    const conns: Deno.Conn[] = [];
    try {
      const first = nextEvent(s.pool, "run");
      conns.push(await sendRaw(s.port, "GET", csvPath("SELECT id, note FROM big ORDER BY id")));
      await first;
      await readStart(conns[0]);
      for (let i = 0; i < 2; i++) {
        const queued = nextEvent(s.pool, "queued");
        conns.push(await sendRaw(s.port, "GET", csvPath("SELECT id, note FROM big ORDER BY id")));
        await deadline.within("the next download waits for a worker", queued);
      }
      // Before: the three held both workers and the spare, and this one got 504 at the limit.
      const cheap = await fetch(`${s.url}api/query?query=SELECT%201`);
      assert.equal(cheap.status, 200, await cheap.text());
      assert.equal(s.pool.queued, 2, "the other downloads still wait");
      // When the reading one finishes, the next download gets its worker.
      const next = nextEvent(s.pool, "run");
      const rest = await deadline.within("the first download's end", readToEnd(conns[0]));
      assert.ok(rest.bytes.length > 0);
      await deadline.within("the second download runs", next);
    } finally {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await s.close();
    }
  }),
);
