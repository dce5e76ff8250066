/**
 * Part 1, `courier browse` as a user starts it (its own process, with its query workers)
 * beside sqlite-web 0.7.2 (its own process) and `sqlite3 -json` (the floor: the same query
 * straight from the engine, one process per query including its start, as a script runs it).
 * A 100k-row table; a point lookup and 100 / 1,000 / 10,000-row pages, load from wrk on
 * loopback at 1 and 4 connections, the peers interleaved round by round. Prints req/s and p50
 * per peer (median and range over the rounds), the ratios, and the peak RSS of the server
 * process and of its whole tree through the run. sqlite-web is run from its source with
 * Debian's python3-flask and python3-peewee: $SQLITE_WEB_SRC (a checkout of tag 0.7.2), else the
 * tag taken from a local mirror of its repository; without either the column is skipped and the
 * way to get it printed. BENCH_BROWSE_ROUNDS sets the rounds (default 3).
 *
 * Part 1b, the pages: the table page beside sqlite-web's, page 5,000 by key against page 1
 * (`deno run -A bench/browse.ts pages` runs it alone).
 *
 * Part 2, limits (issue 11): the server's RSS idle and under a 480 MB answer; a point query's
 * delay after six runaway queries whose clients hung up after 1 s; a point query's latency while
 * 4 clients loop runaway queries. `deno run -A bench/browse.ts limits` runs part 2 alone
 * (BENCH_BROWSE_LIMITS=0 skips it after part 1).
 */
import Database from "npm:libsql@0.5.29";
import { startBrowser } from "../src/browse/http/server.ts";
import { courierArgs, PRODUCT_ENV, PRODUCT_V8_FLAGS } from "../tests/support/product.ts";

const ROWS = 100_000;
const SECONDS = 2;
const CONCURRENCY = [1, 4];
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

async function wrk(url: string, connections: number, seconds = SECONDS): Promise<Result> {
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${Math.min(connections, 2)}`,
      `-c${connections}`,
      `-d${seconds}s`,
      "--latency",
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  const p50 = ms(/^\s+50%\s+(\S+)/m.exec(text)?.[1] ?? "");
  const p99 = ms(/^\s+99%\s+(\S+)/m.exec(text)?.[1] ?? "");
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
const HUGE =
  "SELECT printf('%.*c', 1000000, 'x') FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 480) SELECT value FROM s)";
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

/**
 * Part 1b, the pages (issue 36): the table page of 100 rows, HTML as a person gets it, beside
 * sqlite-web's table page (`/<table>/content/`, 100 rows per page); and page 5,000 of the table
 * at 20 rows a page, reached by key (the Next link's URL) and by OFFSET (a jump), against page 1.
 */
async function tablePages(
  courier: Server,
  sw: Server | null,
  rounds: number,
  accept: string[],
): Promise<void> {
  const urls: [string, string][] = [
    ["courier table page (100 rows)", `${courier.base}db/table/bench`],
    ["courier page 1 (20 rows)", `${courier.base}db/table/bench?size=20`],
    [
      "courier page 5,000 by key",
      `${courier.base}db/table/bench?size=20&after=%5B99980%5D&page=5000`,
    ],
    ["courier page 5,000 by OFFSET", `${courier.base}db/table/bench?size=20&page=5000`],
  ];
  if (sw) {
    urls.splice(1, 0, ["sqlite-web table page (100 rows)", `${sw.base}bench/content/?page=1`]);
  }
  // Each must answer its rows: the page's last id is on it.
  const expect: Record<string, string> = {
    "courier table page (100 rows)": "/row?key=%5B100%5D",
    "sqlite-web table page (100 rows)": "item 100",
    "courier page 1 (20 rows)": "/row?key=%5B20%5D",
    "courier page 5,000 by key": "/row?key=%5B100000%5D",
    "courier page 5,000 by OFFSET": "/row?key=%5B100000%5D",
  };
  for (const [name, url] of urls) {
    const text = await (await fetch(url)).text();
    if (!text.includes(expect[name])) throw new Error(`${name} answered wrongly: ${url}`);
    await wrk(url, 4, 1);
  }
  const rps: Record<string, number[]> = {};
  const p50: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, url] of urls) {
      const b = await wrk(url, 4);
      (rps[name] ??= []).push(b.rps);
      (p50[name] ??= []).push(b.p50);
    }
  }
  console.log("pages, 4 connections:");
  for (const [name] of urls) {
    console.log(
      `  ${name.padEnd(34)} req/s ${spread(rps[name], 0).padEnd(22)} p50 ms ${
        spread(p50[name], 2)
      }`,
    );
  }
  if (sw) {
    const r = median(rps["courier table page (100 rows)"]) /
      median(rps["sqlite-web table page (100 rows)"]);
    accept.push(`table page (100 rows) at 4 connections: ${r.toFixed(1)}x sqlite-web's req/s`);
  }
  const byKey = median(p50["courier page 5,000 by key"]) / median(p50["courier page 1 (20 rows)"]);
  const byOffset = median(p50["courier page 5,000 by OFFSET"]) /
    median(p50["courier page 1 (20 rows)"]);
  accept.push(
    `page 5,000 by key: p50 ${byKey.toFixed(2)}x page 1's (target <= 1.2x): ${
      byKey <= 1.2 ? "PASS" : "FAIL"
    }; by OFFSET ${byOffset.toFixed(2)}x`,
  );
}

const SQLITE_WEB_TAG = "0.7.2";
const SQLITE_WEB_MIRROR = "/work/.mirror/coleifer+sqlite-web/repo";
/** The rows each query must answer with, and the id of the first: checked before timing. */
const EXPECT: Record<string, [number, number]> = {
  "point lookup": [1, 54321],
  "100 rows": [100, 1001],
  "1,000 rows": [1000, 1001],
  "10,000 rows": [10000, 1001],
};

/** A server under test, as its own process tree. */
interface Server {
  name: string;
  pid: number;
  /** Where it serves, ending in `/`: the pages part asks for its table page. */
  base: string;
  url(query: string): string;
  stop(): Promise<void>;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** `courier browse DB` as a user starts it, reading the address from its first line. */
async function startCourier(db: string): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    args: courierArgs("browse", db, "--port", "0", "--max-rows", "10000", "--timeout", "30s"),
    env: PRODUCT_ENV,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let m: RegExpExecArray | null = null;
  while (!(m = / at (http:\S+)\n/.exec(text))) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`courier browse did not start:\n${text}`);
    text += value;
  }
  const base = m[1];
  // Keep its stdout drained so a line it prints later can never block it.
  (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  return {
    name: "courier",
    pid: child.pid,
    base,
    url: (q) => `${base}api/query?query=${encodeURIComponent(q)}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * sqlite-web's source: $SQLITE_WEB_SRC (a checkout of tag 0.7.2), else tag 0.7.2 taken from the
 * mirror of its repository into `dir`. Null with the reason when there is none, or when
 * Debian's python3-flask and python3-peewee are missing.
 */
async function sqliteWebSource(dir: string): Promise<{ src: string } | { why: string }> {
  const how = `git clone --branch ${SQLITE_WEB_TAG} https://github.com/coleifer/sqlite-web ` +
    "and set SQLITE_WEB_SRC to it; apt-get install python3-flask python3-peewee";
  let src = Deno.env.get("SQLITE_WEB_SRC");
  if (src === undefined && isFile(`${SQLITE_WEB_MIRROR}/HEAD`)) {
    src = `${dir}/sqlite-web`;
    await Deno.mkdir(src);
    const tar = await new Deno.Command("sh", {
      args: [
        "-c",
        `git --git-dir="$1" archive ${SQLITE_WEB_TAG} | tar -x -C "$2"`,
        "sh",
        SQLITE_WEB_MIRROR,
        src,
      ],
      stderr: "null",
    }).output();
    if (!tar.success) src = undefined;
  }
  if (src === undefined || !isFile(`${src}/sqlite_web/sqlite_web.py`)) {
    return { why: `sqlite-web ${SQLITE_WEB_TAG} not found (${how})` };
  }
  const py = await new Deno.Command("/usr/bin/python3", {
    args: ["-c", "import flask, peewee"],
    stderr: "null",
  }).output().catch(() => null);
  if (!py?.success) return { why: `python3 cannot import flask and peewee (${how})` };
  return { src };
}

/** sqlite-web, read-only and quiet (a line per request on stderr would slow it). */
async function startSqliteWeb(src: string, db: string): Promise<Server> {
  const port = freePort();
  const child = new Deno.Command("/usr/bin/python3", {
    args: [
      "-m",
      "sqlite_web",
      "--no-browser",
      "-r",
      "-q",
      // The table page holds 100 rows, as courier's does.
      "--rows-per-page",
      "100",
      "-p",
      String(port),
      "-H",
      "127.0.0.1",
      db,
    ],
    env: { PYTHONPATH: src },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const base = `http://127.0.0.1:${port}/`;
  for (let i = 0;; i++) {
    try {
      const res = await fetch(base);
      await res.body?.cancel();
      break;
    } catch (error) {
      if (i >= 200) {
        child.kill();
        throw error;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    name: "sqlite-web",
    pid: child.pid,
    base,
    // The query page's JSON export: the rows of the query, as JSON, without paging.
    url: (q) => `${base}query/?sql=${encodeURIComponent(q)}&export_json=1`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Rows and first id of each server's JSON answer, so no peer is timed answering an error. */
async function sanity(server: Server, name: string, query: string): Promise<void> {
  const res = await fetch(server.url(query));
  const body = await res.json();
  const rows: unknown[] = Array.isArray(body) ? body : body.rows;
  const first = Array.isArray(body) ? body[0]?.id : body.rows?.[0]?.[0];
  const [n, id] = EXPECT[name];
  if (res.status !== 200 || rows?.length !== n || Number(first) !== id) {
    throw new Error(`${server.name} answered ${name} wrongly: ${res.status}, ${rows?.length} rows`);
  }
}

async function sqlite3Sanity(db: string, name: string, query: string): Promise<void> {
  const out = await new Deno.Command("sqlite3", { args: ["-json", "-readonly", db, query] })
    .output();
  const rows = JSON.parse(new TextDecoder().decode(out.stdout));
  const [n, id] = EXPECT[name];
  if (rows.length !== n || rows[0].id !== id) throw new Error(`sqlite3 answered ${name} wrongly`);
}

function kb(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(
      Deno.readTextFileSync(`/proc/${pid}/status`),
    );
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
      const text = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/children`).trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch { /* gone */ }
  return out;
}

/**
 * RSS of a server process and of its children (the query workers) through a run: the kernel's
 * high-water mark of each process, and the largest sum over the tree sampled every 20 ms.
 */
class RssWatch {
  #timer: ReturnType<typeof setInterval>;
  #hwm = new Map<number, number>();
  treePeak = 0;

  constructor(readonly pid: number) {
    this.#timer = setInterval(() => this.sample(), 20);
  }

  sample(): void {
    let sum = kb(this.pid, "VmRSS");
    for (const c of childPids(this.pid)) {
      sum += kb(c, "VmRSS");
      this.#hwm.set(c, Math.max(this.#hwm.get(c) ?? 0, kb(c, "VmHWM")));
    }
    this.treePeak = Math.max(this.treePeak, sum);
  }

  /** MB: the main process's peak, the largest worker's peak, the tree's sampled peak. */
  stop(): { main: number; worker: number; workers: number; tree: number } {
    this.sample();
    clearInterval(this.#timer);
    return {
      main: kb(this.pid, "VmHWM") / 1024,
      worker: Math.max(0, ...this.#hwm.values()) / 1024,
      workers: this.#hwm.size,
      tree: this.treePeak / 1024,
    };
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** `median [min-max]` of repeats. */
function spread(xs: number[], d: number): string {
  if (xs.length === 0) return "-";
  const lo = Math.min(...xs), hi = Math.max(...xs);
  return `${median(xs).toFixed(d)} [${lo.toFixed(d)}-${hi.toFixed(d)}]`;
}

interface Cell {
  rps: Record<string, number[]>;
  p50: Record<string, number[]>;
}

export async function run(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench_browse_" });
  const path = `${dir}/bench.db`;
  makeDb(path);
  const rounds = Number(Deno.env.get("BENCH_BROWSE_ROUNDS") ?? 3);
  const web = await sqliteWebSource(dir);
  if ("why" in web) console.log(`sqlite-web column skipped: ${web.why}`);
  const courier = await startCourier(path);
  const watch = new RssWatch(courier.pid);
  const sw = "src" in web ? await startSqliteWeb(web.src, path) : null;
  const swWatch = sw ? new RssWatch(sw.pid) : null;
  const servers = sw ? [courier, sw] : [courier];
  const names = [...servers.map((s) => s.name), "sqlite3 -json"];
  console.log(
    `${ROWS} rows; ${rounds} interleaved rounds of ${SECONDS} s per cell and peer; ` +
      `${navigator.hardwareConcurrency} CPUs; wrk against GET /api/query (courier) and ` +
      `/query/?export_json=1 (sqlite-web ${SQLITE_WEB_TAG}); sqlite3 -json: one process per query`,
  );
  const cells = new Map<string, Cell>();
  const accept: string[] = [];
  try {
    for (const [name, query] of QUERIES) {
      for (const s of servers) await sanity(s, name, query);
      await sqlite3Sanity(path, name, query);
      // Warm up page caches and JIT.
      for (const s of servers) await wrk(s.url(query), 4, 1);
      for (const c of CONCURRENCY) {
        const cell: Cell = { rps: {}, p50: {} };
        for (const n of names) (cell.rps[n] = []), (cell.p50[n] = []);
        for (let r = 0; r < rounds; r++) {
          for (const s of servers) {
            const b = await wrk(s.url(query), c);
            cell.rps[s.name].push(b.rps);
            cell.p50[s.name].push(b.p50);
          }
          const q = await sqlite3(path, query, c);
          cell.rps["sqlite3 -json"].push(q.rps);
          cell.p50["sqlite3 -json"].push(q.p50);
        }
        cells.set(`${name}@${c}`, cell);
        console.log(`${name}, ${c} connection${c > 1 ? "s" : ""}:`);
        for (const n of names) {
          console.log(
            `  ${n.padEnd(14)} req/s ${spread(cell.rps[n], 0).padEnd(22)} p50 ms ${
              spread(cell.p50[n], 2)
            }`,
          );
        }
        const ratios = [
          sw
            ? `courier/sqlite-web req/s ${
              (median(cell.rps.courier) / median(cell.rps["sqlite-web"])).toFixed(1)
            }x`
            : "",
          `courier/sqlite3 -json p50 ${
            (median(cell.p50.courier) / median(cell.p50["sqlite3 -json"])).toFixed(2)
          }x`,
        ].filter(Boolean);
        console.log(`  ${ratios.join("; ")}`);
      }
    }
    await tablePages(courier, sw, rounds, accept);
  } finally {
    const rss = watch.stop();
    const swRss = swWatch?.stop();
    await courier.stop();
    await sw?.stop();
    await Deno.remove(dir, { recursive: true });
    console.log(
      `courier browse peak RSS through the benchmark: server process ${rss.main.toFixed(0)} MB; ` +
        `largest of its ${rss.workers} query workers ${rss.worker.toFixed(0)} MB; ` +
        `whole tree ${rss.tree.toFixed(0)} MB (sampled every 20 ms)`,
    );
    if (swRss) console.log(`sqlite-web peak RSS: ${swRss.main.toFixed(0)} MB (one process)`);
    const ratio = (key: string) => {
      const cell = cells.get(key);
      return cell && sw ? median(cell.rps.courier) / median(cell.rps["sqlite-web"]) : NaN;
    };
    const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
    const point = ratio("point lookup@4");
    if (sw) {
      accept.push(
        `point lookup at 4 connections: ${point.toFixed(1)}x sqlite-web's req/s (target >= 8x): ${
          verdict(point >= 8)
        }`,
      );
    }
    const page = cells.get("1,000 rows@4");
    if (page) {
      if (sw) {
        const r = ratio("1,000 rows@4");
        accept.push(
          `1,000-row page at 4 connections: ${r.toFixed(1)}x sqlite-web's req/s (target >= 10x): ${
            verdict(r >= 10)
          }`,
        );
      } else {
        const r = median(page.rps.courier);
        accept.push(
          `1,000-row page at 4 connections: ${
            r.toFixed(0)
          } req/s (target >= 1,300 without sqlite-web): ${verdict(r >= 1300)}`,
        );
      }
    }
    const big = cells.get("10,000 rows@1");
    if (big) {
      const b = median(big.p50.courier), s = median(big.p50["sqlite3 -json"]);
      accept.push(
        `10,000-row page p50 at 1 connection: ${b.toFixed(2)} ms vs sqlite3 -json ${
          s.toFixed(2)
        } ms (target <=): ${verdict(b <= s)}`,
      );
    }
    accept.push(
      `server peak RSS: ${
        rss.main.toFixed(0)
      } MB for the server process (target <= 120 MB, issue 40): ${
        verdict(rss.main <= 120)
      }; with its workers ${
        rss.tree.toFixed(0)
      } MB (no target: each worker is a process of its own)`,
    );
    for (const line of accept) console.log(line);
  }
  if (Deno.env.get("BENCH_BROWSE_LIMITS") === "0") return;
  // In a fresh process: part 2 reads this process's own RSS, which part 1 has grown. It runs
  // the server in that process, so it gets the V8 flags `courier browse` starts with.
  const part2 = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "limits"],
    env: { ...PRODUCT_ENV, DENO_V8_FLAGS: PRODUCT_V8_FLAGS },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!part2.success) throw new Error("bench: the limits part failed");
}

/** Part 1b alone: `deno run -A bench/browse.ts pages`. */
async function pagesOnly(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench_pages_" });
  const path = `${dir}/bench.db`;
  makeDb(path);
  const web = await sqliteWebSource(dir);
  if ("why" in web) console.log(`sqlite-web column skipped: ${web.why}`);
  const courier = await startCourier(path);
  const sw = "src" in web ? await startSqliteWeb(web.src, path) : null;
  const accept: string[] = [];
  try {
    await tablePages(courier, sw, Number(Deno.env.get("BENCH_BROWSE_ROUNDS") ?? 3), accept);
  } finally {
    await courier.stop();
    await sw?.stop();
    await Deno.remove(dir, { recursive: true });
  }
  for (const line of accept) console.log(line);
}

if (import.meta.main) {
  if (Deno.args[0] === "limits") await limits();
  else if (Deno.args[0] === "pages") await pagesOnly();
  else await run();
}
