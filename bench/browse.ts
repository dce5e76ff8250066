/**
 * `courier browse` against `sqlite3 -json` (the floor: the same query straight from the
 * engine, one process per query as a script would run it). A 100k-row table; a point lookup
 * and 100 / 1,000 / 10,000-row pages through GET /api/query, concurrency 1 / 4 / 16, load
 * from wrk on loopback. Prints req/s, p50/p99 and the ratios.
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

export async function run(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench_browse_" });
  const path = `${dir}/bench.db`;
  const db = new Database(path);
  db.exec(
    `CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL, note TEXT);
    INSERT INTO bench SELECT value, 'item ' || value, value * 7 % 1000, value / 3.0,
      printf('%.40c', 'n') FROM generate_series(1, ${ROWS});`,
  );
  db.close();
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
}

if (import.meta.main) {
  await run();
}
