/**
 * Part 1, `courier browse` against `sqlite3 -json` (the floor: the same query straight from the
 * engine, one process per query as a script would run it). A 100k-row table; a point lookup
 * and 100 / 1,000 / 10,000-row pages through GET /api/query, concurrency 1 / 4 / 16, load
 * from wrk on loopback. Prints req/s, p50/p99 and the ratios.
 *
 * Part 2, limits (issue 11): the server's RSS idle and under a 480 MB answer; a point query's
 * delay after six runaway queries whose clients hung up after 1 s; a point query's latency while
 * 4 clients loop runaway queries. `deno run -A bench/browse.ts limits` runs part 2 alone.
 */
import Database from "libsql";
import { startBrowser } from "../src/browse/server.ts";

const ROWS = 100_000;
const SECONDS = 3;
const CONCURRENCY = [1, 4, 16];
const QUERIES: [string, string][] = [
  ["point lookup", "SELECT * FROM bench WHERE id = 54321"],
  ["100 rows", "SELECT * FROM bench WHERE id > 1000 ORDER BY id LIMIT 100"],
  ["1,000 rows", "SELECT * FROM bench WHERE id > 1000 ORDER BY id LIMIT 1000"],
  ["10,000 rows", "SELECT * FROM bench WHERE id > 1000 ORDER BY id LIMIT 10000"],
];

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : m[2] === "m" ? n * 60_000 : n;
}

async function wrk(url: string, connections: number): Promise<Result> {
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${Math.min(connections, 2)}`,
      `-c${connections}`,
      `-d${SECONDS}s`,
      "--latency",
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  const p50 = ms(/50%\s+(\S+)/.exec(text)?.[1] ?? "");
  const p99 = ms(/99%\s+(\S+)/.exec(text)?.[1] ?? "");
  if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors:\n${text}`);
  if (Number.isNaN(p50)) console.error(`bench: cannot read wrk's latency:\n${text}`);
  return { rps, p50, p99 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** `sqlite3 -json DB QUERY` in `concurrency` parallel loops for SECONDS. */
async function sqlite3(db: string, query: string, concurrency: number): Promise<Result> {
  const times: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const out = await new Deno.Command("sqlite3", {
        args: ["-json", "-readonly", db, query],
        stdout: "piped",
        stderr: "null",
      }).output();
      if (!out.success) throw new Error("sqlite3 failed");
      times.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  return { rps: times.length / elapsed, p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

const f = (n: number, d = 2) => n.toFixed(d).padStart(9);

function makeDb(path: string): void {
  const db = new Database(path);
  db.exec(
    `CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL, note TEXT);
    INSERT INTO bench SELECT value, 'item ' || value, value * 7 % 1000, value / 3.0,
      printf('%.40c', 'n') FROM generate_series(1, ${ROWS});`,
  );
  db.close();
}

const ENDLESS =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c";
const POINT = "SELECT * FROM bench WHERE id = 54321";
const HUGE = "SELECT printf('%.*c', 1000000, 'x') FROM generate_series(1, 480)";
const LOOP_SECONDS = 20;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function post(base: string, query: string, signal?: AbortSignal) {
  const t0 = performance.now();
  const res = await fetch(`${base}api/query`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query }),
    signal,
  });
  const body = new Uint8Array(await res.arrayBuffer());
  const text = res.status === 200 ? "" : new TextDecoder().decode(body);
  return { status: res.status, bytes: body.length, text, ms: performance.now() - t0 };
}

/** Part 2; `start` is replaceable so the same figures can be taken of an older server. */
export async function limits(start: typeof startBrowser = startBrowser): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench_limits_" });
  const path = `${dir}/bench.db`;
  makeDb(path);
  const options = {
    database: path,
    label: "bench.db",
    write: false,
    host: "127.0.0.1",
    port: 0,
    timeoutMs: 5000,
    maxRows: 1000,
    cors: [],
  };
  // The 480 MB answer with a limit long enough for it to be produced whole.
  const patient = await start({ ...options, timeoutMs: 120_000 });
  try {
    for (let i = 0; i < 20; i++) await post(patient.url, POINT);
    const idle = Deno.memoryUsage().rss;
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 5);
    const huge = await post(patient.url, HUGE);
    await new Promise((r) => setTimeout(r, 1000));
    const after = Deno.memoryUsage().rss;
    console.log(
      `server RSS: idle ${mb(idle)} MB, peak during the 480 MB query ${mb(peak)} MB (+${
        mb(peak - idle)
      }), 1 s after ${mb(after)} MB; that query answered ${huge.status} with ${
        mb(huge.bytes)
      } MB in ${huge.ms.toFixed(0)} ms: ${huge.status === 200 ? "" : huge.text.slice(0, 120)}`,
    );
    peak = Deno.memoryUsage().rss;
    const t0 = performance.now();
    const csv = await fetch(`${patient.url}api/query?format=csv&query=${encodeURIComponent(HUGE)}`);
    let size = 0;
    for await (const chunk of csv.body!) size += chunk.length;
    clearInterval(sampler);
    console.log(
      `server RSS: the same as a CSV download: ${csv.status}, ${mb(size)} MB in ${
        (performance.now() - t0).toFixed(0)
      } ms, peak ${mb(peak)} MB (+${mb(peak - idle)} over idle)`,
    );
  } finally {
    await patient.close();
  }
  const browser = await start(options);
  const base = browser.url;
  try {
    console.log(`limits: ${browser.pool.pids.length} workers, --timeout 5s`);
    // A client that hangs up on a running query: how long until its worker is gone.
    if (typeof browser.pool.observe === "function") {
      const ran = new Promise<number>((resolve) => {
        const stop = browser.pool.observe((e) => {
          if (e.type !== "run") return;
          stop();
          resolve(e.pid);
        });
      });
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: browser.port });
      const body = JSON.stringify({ query: ENDLESS });
      await conn.write(new TextEncoder().encode(
        `POST /api/query HTTP/1.1\r\nHost: 127.0.0.1:${browser.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ));
      const pid = await ran;
      await new Promise((r) => setTimeout(r, 300));
      const t0 = performance.now();
      conn.close();
      await browser.pool.exitOf(pid);
      console.log(
        `a running query's client hung up: its worker exited ${
          (performance.now() - t0).toFixed(1)
        } ms later`,
      );
    }

    // Six runaway queries whose clients hang up after 1 s, then a point query.
    const hangups = Array.from({ length: 6 }, () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 1000);
      return post(base, ENDLESS, ac.signal).catch(() => null);
    });
    await new Promise((r) => setTimeout(r, 1050));
    const point = await post(base, POINT);
    await Promise.all(hangups);
    console.log(
      `point query after 6 runaways hung up at 1 s: ${point.status} in ${point.ms.toFixed(1)} ms`,
    );
    // Let the server settle: whatever still runs ends at its limit.
    await new Promise((r) => setTimeout(r, 5500));

    // Four clients loop runaway queries (waiting for each answer); one loops point queries.
    const end = performance.now() + LOOP_SECONDS * 1000;
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const runaway = async () => {
      while (performance.now() < end) count((await post(base, ENDLESS)).status);
    };
    const times: number[] = [];
    const points = new Map<number, number>();
    const pointLoop = async () => {
      await new Promise((r) => setTimeout(r, 200));
      while (performance.now() < end) {
        const r = await post(base, POINT);
        times.push(r.ms);
        points.set(r.status, (points.get(r.status) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await Promise.all([runaway(), runaway(), runaway(), runaway(), pointLoop()]);
    times.sort((a, b) => a - b);
    console.log(
      `point query with 4 clients looping runaway queries (${LOOP_SECONDS} s): n=${times.length} p50 ${
        percentile(times, 0.5).toFixed(1)
      } ms, p90 ${percentile(times, 0.9).toFixed(1)} ms, max ${
        times[times.length - 1].toFixed(1)
      } ms; point statuses ${JSON.stringify(Object.fromEntries(points))}, runaway statuses ${
        JSON.stringify(Object.fromEntries(statuses))
      }`,
    );
  } finally {
    await browser.close();
    await Deno.remove(dir, { recursive: true });
  }
}

export async function run(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench_browse_" });
  const path = `${dir}/bench.db`;
  makeDb(path);
  const browser = await startBrowser({
    database: path,
    label: "bench.db",
    write: false,
    host: "127.0.0.1",
    port: 0,
    timeoutMs: 30_000,
    maxRows: 10_000,
    cors: [],
  });
  const cpus = navigator.hardwareConcurrency;
  console.log(
    `${ROWS} rows, ${SECONDS}s per cell, ${cpus} CPUs, ${browser.pool.pids.length} workers`,
  );
  console.log(
    "query          conc | browse req/s   p50 ms   p99 ms | sqlite3 req/s  p50 ms   p99 ms | p50 ratio",
  );
  const accept: string[] = [];
  try {
    for (const [name, query] of QUERIES) {
      const url = `${browser.url}api/query?query=${encodeURIComponent(query)}`;
      // Warm up the workers' page caches and JIT.
      await wrk(url, 4);
      for (const c of CONCURRENCY) {
        const b = await wrk(url, c);
        const s = await sqlite3(path, query, c);
        console.log(
          `${name.padEnd(14)} ${String(c).padStart(4)} |${f(b.rps, 0)}${f(b.p50)}${f(b.p99)} |${
            f(s.rps, 0)
          }${f(s.p50)}${f(s.p99)} |${f(b.p50 / s.p50)}`,
        );
        if (name === "point lookup" && c === 4) {
          accept.push(
            `point lookup p50 at c=4: ${b.p50.toFixed(3)} ms (target <= 2 ms): ${
              b.p50 <= 2 ? "PASS" : "FAIL"
            }`,
          );
        }
        if (name === "10,000 rows" && c === 1) {
          const r = b.p50 / s.p50;
          accept.push(
            `10,000-row page p50 vs sqlite3 -json at c=1: ${r.toFixed(2)}x (target <= 2x): ${
              r <= 2 ? "PASS" : "FAIL"
            }`,
          );
        }
      }
    }
  } finally {
    await browser.close();
    await Deno.remove(dir, { recursive: true });
  }
  for (const line of accept) console.log(line);
  await limits();
}

if (import.meta.main) {
  if (Deno.args[0] === "limits") await limits();
  else await run();
}
