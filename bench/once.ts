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
import type { FeedSettings } from "../src/config/types.ts";
import { ENTRIES, interleave, median, ms, Side, startFeedServer, writeConfig } from "./_feeds.ts";
import { benchFeeds } from "./_once_side.ts";

const FEEDS = 500;
// In-process rounds are cheap and this 2-core VM is noisy: enough of them for a stable median.
const ROUNDS = 41;
const PROCESS_ROUNDS = 7;
const CONCURRENCY = 8;
const MAIN = new URL("../main.ts", import.meta.url).pathname;

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

export async function run(): Promise<void> {
  console.log(
    `steady-state once: ${FEEDS} feeds × ${ENTRIES} entries, all seen, concurrency ${CONCURRENCY} (medians)`,
  );
  for (const variant of VARIANTS) await measure(variant);
}

async function measure(variant: Variant): Promise<void> {
  const server = await startFeedServer(FEEDS, variant.validators, variant.delayMs);
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-once-" });
  try {
    const feeds = benchFeeds(server.port, FEEDS);
    const names = ["runOnce", "bare", ...(variant.floor ? ["floor"] : [])];
    const sides: Side[] = [];
    for (const name of names) {
      const args = [
        name,
        String(server.port),
        `${dir}/${name}`,
        String(FEEDS),
        String(CONCURRENCY),
      ];
      sides.push(await Side.start(name, SIDE, args));
    }
    const times = await interleave(sides, variant.rounds);
    for (const side of sides) await side.stop();

    const b = median(times.bare);
    const ratio = (name: string) =>
      `${ms(median(times[name]))}   ratio ${(median(times[name]) / b).toFixed(2)}×`;
    console.log(`  ${variant.label}`);
    console.log(`    in-process  runOnce ${ratio("runOnce")}   (bare fetch ${ms(b)})`);
    if (variant.floor) console.log(`    floor loop          ${ratio("floor")}`);
    if (!variant.processes) return;
    // Whole processes: the CLI against the same state, and a bare fetch script.
    await writeConfig(`${dir}/config.yml`, `${dir}/runOnce`, feeds);
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
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await run();
