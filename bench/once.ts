/**
 * Steady-state `courier once`: 500 local feeds × 50 entries, every entry already seen, so a run
 * is fetch + "anything new?" + bookkeeping. Compared with a bare concurrent fetch of the same
 * URLs (plain GETs, bodies read, nothing else) at the same concurrency, measured in the same
 * run. The feeds are served by a separate process, so the server's work is not on the
 * measured thread (on a 2-core machine it still competes for the CPU with both sides).
 *
 * Three kinds of site:
 * - with validators (ETag and Last-Modified, as static servers and most feed hosts send): the
 *   steady state as it is in the field; courier asks conditionally and gets 304s, the bare
 *   fetch downloads every body.
 * - without validators (the worst case): every body comes in full and courier recognises it
 *   unchanged by the hash stored after the last successful run, without parsing it. On
 *   loopback a bare request costs ~50 µs of CPU, so every microsecond of courier's own work
 *   shows; the "floor" line is the least a steady-state run can do per feed (fetch with
 *   headers and a timeout, hash, compare, record the run and the success time) written as
 *   one flat loop, to show how much of the ratio is the work itself.
 * - 20 ms away, without validators: what real sites look like, where fetching dominates
 *   (and the start-up of a whole process matters little).
 *
 * In-process (runOnce vs a fetch loop) and whole processes (`courier once` vs a `deno eval`
 * fetch loop; both pay Deno's start-up, courier also its own: modules, config, database).
 */
import { stringify } from "yaml";
import type { FeedSettings } from "../src/config/types.ts";
import { benchFeeds, linesOf } from "./_once_side.ts";

const FEEDS = 500;
const ENTRIES = 50;
// In-process rounds are cheap and this 2-core VM is noisy: enough of them for a stable median.
const ROUNDS = 41;
const PROCESS_ROUNDS = 7;
const CONCURRENCY = 8;
const MAIN = new URL("../main.ts", import.meta.url).pathname;

const SERVER = `
const items = (f) => Array.from({ length: ${ENTRIES} }, (_, i) => {
  const date = new Date(Date.UTC(2024, 0, 1, 0, i)).toUTCString();
  return "<item><title>Feed " + f + " entry " + i + " &amp; more</title><link>https://example.org/" + f +
    "/" + i + "</link><guid>https://example.org/" + f + "/" + i + "</guid><pubDate>" + date +
    "</pubDate><description>Some summary text for entry " + i + ", long enough to be realistic." +
    "</description></item>";
}).reverse().join("\\n");
const bodies = new Map();
for (let f = 0; f < ${FEEDS}; f++) {
  bodies.set("/feed" + f + ".xml", '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>' +
    "<title>Feed " + f + "</title><link>https://example.org/</link><description>d</description>" +
    items(f) + "</channel></rss>");
}
const [validators, delayMs] = [Deno.args[0] === "validators", Number(Deno.args[1] ?? 0)];
const lastModified = new Date(Date.UTC(2024, 0, 2)).toUTCString();
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(port) },
  async (req) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const path = new URL(req.url).pathname;
    const body = bodies.get(path);
    if (!body) return new Response("no", { status: 404 });
    const headers = { "content-type": "application/rss+xml" };
    if (validators) {
      headers.etag = '"' + path + '"';
      headers["last-modified"] = lastModified;
      const match = req.headers.get("if-none-match");
      const since = req.headers.get("if-modified-since");
      const unchanged = match !== null ? match === headers.etag : since === lastModified;
      if (unchanged) return new Response(null, { status: 304, headers });
    }
    return new Response(body, { headers });
  });
await server.finished;
`;

const BARE = (feeds: FeedSettings[]) => `
const urls = ${JSON.stringify(feeds.map((f) => f.urls[0]))};
let next = 0;
async function worker() {
  while (next < urls.length) {
    const url = urls[next++];
    const r = await fetch(url);
    await r.arrayBuffer();
  }
}
await Promise.all(Array.from({ length: ${CONCURRENCY} }, worker));
`;

const ms = (x: number) => `${x.toFixed(0).padStart(5)} ms`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function startServer(validators: boolean, delayMs: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", SERVER, validators ? "validators" : "plain", String(delayMs)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  return { port: Number(value!.trim()), child, reader };
}

interface Variant {
  label: string;
  validators: boolean;
  delayMs: number;
  rounds: number;
  processes: boolean;
  floor: boolean;
}

const VARIANTS: Variant[] = [
  {
    label: "localhost, feeds with validators (ETag + Last-Modified): courier gets 304s",
    validators: true,
    delayMs: 0,
    rounds: ROUNDS,
    processes: true,
    floor: false,
  },
  {
    label: "localhost, no validators (every body in full, recognised unchanged): worst case",
    validators: false,
    delayMs: 0,
    rounds: ROUNDS,
    processes: true,
    floor: true,
  },
  {
    label: "20 ms site latency, no validators",
    validators: false,
    delayMs: 20,
    rounds: 5,
    processes: true,
    floor: false,
  },
];

const SIDE = new URL("./_once_side.ts", import.meta.url).pathname;

/** A benchmark side in its own process (see bench/_once_side.ts), run a round at a time. */
class Side {
  private constructor(
    readonly name: string,
    private readonly child: Deno.ChildProcess,
    private readonly lines: AsyncIterator<string>,
    private readonly stdin: WritableStreamDefaultWriter<Uint8Array>,
  ) {}

  static async start(name: string, port: number, dataDir: string): Promise<Side> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", SIDE, name, String(port), dataDir, String(FEEDS), String(CONCURRENCY)],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const side = new Side(name, child, linesOf(child.stdout), child.stdin.getWriter());
    const first = await side.lines.next();
    if (first.value !== "ready") throw new Error(`bench side ${name} did not start`);
    return side;
  }

  async round(): Promise<number> {
    await this.stdin.write(new TextEncoder().encode("run\n"));
    const line = await this.lines.next();
    if (line.done) throw new Error(`bench side ${this.name} stopped`);
    return Number(line.value);
  }

  async stop(): Promise<void> {
    await this.stdin.close();
    const status = await this.child.status;
    if (!status.success) throw new Error(`bench side ${this.name} failed`);
  }
}

export async function run(): Promise<void> {
  console.log(
    `steady-state once: ${FEEDS} feeds × ${ENTRIES} entries, all seen, concurrency ${CONCURRENCY} (medians)`,
  );
  for (const variant of VARIANTS) await measure(variant);
}

async function measure(variant: Variant): Promise<void> {
  const server = await startServer(variant.validators, variant.delayMs);
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-once-" });
  try {
    const feeds = benchFeeds(server.port, FEEDS);
    const names = ["runOnce", "bare", ...(variant.floor ? ["floor"] : [])];
    const sides: Side[] = [];
    for (const name of names) sides.push(await Side.start(name, server.port, `${dir}/${name}`));
    const times: Record<string, number[]> = {};
    // Each side goes first as often as the others.
    for (let i = 0; i < variant.rounds; i++) {
      for (let j = 0; j < sides.length; j++) {
        const side = sides[(i + j) % sides.length];
        (times[side.name] ??= []).push(await side.round());
      }
    }
    for (const side of sides) await side.stop();

    const b = median(times.bare);
    const ratio = (name: string) =>
      `${ms(median(times[name]))}   ratio ${(median(times[name]) / b).toFixed(2)}×`;
    console.log(`  ${variant.label}`);
    console.log(`    in-process  runOnce ${ratio("runOnce")}   (bare fetch ${ms(b)})`);
    if (variant.floor) console.log(`    floor loop          ${ratio("floor")}`);
    if (!variant.processes) return;
    // Whole processes: the CLI against the same state, and a bare fetch script.
    await Deno.writeTextFile(
      `${dir}/config.yml`,
      stringify({
        messenger_auth_token: "123456:bench-token-unused",
        data_dir: `${dir}/runOnce`,
        feeds: feeds.map((f) => ({
          name: f.name,
          channel: f.channel,
          url: f.urls[0],
          cron: f.cron,
          type: f.type,
        })),
      }),
    );
    const cliRuns: number[] = [];
    const bareRuns: number[] = [];
    for (let i = 0; i < PROCESS_ROUNDS; i++) {
      let t = performance.now();
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          MAIN,
          "once",
          "-c",
          `${dir}/config.yml`,
          "--messenger-api",
          "http://127.0.0.1:9",
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
      cliRuns.push(performance.now() - t);
      if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
      t = performance.now();
      await new Deno.Command(Deno.execPath(), { args: ["eval", BARE(feeds)] }).output();
      bareRuns.push(performance.now() - t);
    }
    const cc = median(cliRuns), bb = median(bareRuns);
    console.log(
      `    processes   courier once ${ms(cc)}   deno eval fetch ${ms(bb)}   ratio ${
        (cc / bb).toFixed(2)
      }×`,
    );
  } finally {
    server.child.kill("SIGTERM");
    await server.reader.cancel();
    await server.child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await run();
