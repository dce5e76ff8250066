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
 *   loopback a bare request costs little CPU (bench/NOTES.md), so courier's own work shows;
 *   the "floor" line is the least a steady-state run can do per feed (fetch with
 *   headers and a timeout, hash, compare, record the run and the success time) written as
 *   one flat loop, to show how much of the ratio is the work itself.
 * - 20 ms away, without validators: what real sites look like, where fetching dominates
 *   (and the start-up of a whole process matters little).
 *
 * The figure that counts is between whole processes as a user starts them: `courier once -c
 * FILE` against a tiny `deno run` script that fetches the same URLs (and the same script under
 * Node when it is installed), rounds interleaved, median and range. Both pay Deno's start-up;
 * courier also its own (modules, config, database, lock). The in-process figures (runOnce
 * against a fetch loop, each warm in a process of its own) are printed beside them as a
 * diagnosis: the difference between the two is courier's start-up.
 */
import { courierArgs } from "../tests/support/product.ts";
import { ENTRIES, interleave, median, ms, Side, startFeedServer, writeConfig } from "./_feeds.ts";
import { benchFeeds } from "./_once_side.ts";
import { hranaMissing, startHrana } from "../tests/support/hrana_server.ts";

const FEEDS = 500;
// In-process rounds are cheap and this 2-core VM is noisy: enough of them for a stable median.
const ROUNDS = 41;
const PROCESS_ROUNDS = 11;
const CONCURRENCY = 8;

/**
 * The bare baseline as a whole process of its own: a tiny script run the way courier is
 * (`deno run`), the same URLs fetched and their bodies read at the same concurrency. The Node
 * twin is a second peer (Node's fetch is undici) where Node is installed.
 */
const BARE_SCRIPT = `
const urls = JSON.parse(await (typeof Deno === "undefined"
  ? (await import("node:fs/promises")).readFile(process.argv.at(-1), "utf8")
  : Deno.readTextFile(Deno.args[0])));
let next = 0;
async function worker() {
  while (next < urls.length) {
    const r = await fetch(urls[next++]);
    await r.arrayBuffer();
  }
}
await Promise.all(Array.from({ length: ${CONCURRENCY} }, worker));
`;

/**
 * The least a steady-state run must do, as a whole process: read the stored validators from
 * the state database (node:sqlite, as courier does) and fetch every URL conditionally with
 * them, bodies read, at the same concurrency. Nothing else: no config, no lock, no records.
 * The gap between it and courier is courier's own start-up and bookkeeping.
 */
const FLOOR_SCRIPT = `
import { DatabaseSync } from "node:sqlite";
const [urlsFile, dbFile] = Deno.args;
const urls = JSON.parse(await Deno.readTextFile(urlsFile));
const db = new DatabaseSync(dbFile);
const stored = new Map();
for (const row of db.prepare("SELECT url, etag, last_modified FROM validators").all()) {
  stored.set(row.url, row);
}
db.close();
let next = 0;
async function worker() {
  while (next < urls.length) {
    const url = urls[next++];
    const v = stored.get(url);
    const headers = {};
    if (v?.etag) headers["if-none-match"] = v.etag;
    if (v?.last_modified) headers["if-modified-since"] = v.last_modified;
    const r = await fetch(url, { headers });
    await r.arrayBuffer();
  }
}
await Promise.all(Array.from({ length: ${CONCURRENCY} }, worker));
`;

/** Node, if installed (`apt-get install nodejs`): its version, else null. */
async function nodeVersion(): Promise<string | null> {
  try {
    const out = await new Deno.Command("node", { args: ["--version"] }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null;
  }
}

/** `name median (min–max)`, the ratio against `base`'s median when given. */
function figure(name: string, runs: number[], base?: number[]): string {
  const m = median(runs);
  const range = `${Math.min(...runs).toFixed(0)}–${Math.max(...runs).toFixed(0)} ms`;
  const ratio = base ? `   ratio ${(m / median(base)).toFixed(2)}×` : "";
  return `${name} ${ms(m)} (${range})${ratio}`;
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

export async function run(): Promise<void> {
  console.log(
    `steady-state once: ${FEEDS} feeds × ${ENTRIES} entries, all seen, concurrency ${CONCURRENCY} (medians)`,
  );
  const node = await nodeVersion();
  if (node === null) {
    console.log("(no node: the bare Node fetch is left out; apt-get install nodejs)");
  }
  for (const variant of VARIANTS) await measure(variant, node);
}

async function measure(variant: Variant, node: string | null): Promise<void> {
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

    console.log(`  ${variant.label}`);
    // In-process (one warm process per side, rounds interleaved): a diagnosis, without the
    // start-up that the whole processes below include.
    console.log(`    in-process  ${figure("runOnce", times.runOnce, times.bare)}`);
    console.log(`                ${figure("bare fetch", times.bare)}`);
    if (variant.floor) {
      console.log(`                ${figure("floor loop", times.floor, times.bare)}`);
    }
    if (!variant.processes) return;
    // Whole processes, each as a user starts it, interleaved (each first as often as the
    // others): the CLI against the state the in-process side left, and the bare fetch scripts.
    await writeConfig(`${dir}/config.yml`, `${dir}/runOnce`, feeds);
    // One feed of the same state: what a run costs before its feeds, i.e. start-up.
    await writeConfig(`${dir}/config1.yml`, `${dir}/runOnce`, feeds.slice(0, 1));
    await Deno.writeTextFile(`${dir}/urls.json`, JSON.stringify(feeds.map((f) => f.urls[0])));
    await Deno.writeTextFile(`${dir}/urls1.json`, JSON.stringify([feeds[0].urls[0]]));
    await Deno.writeTextFile(`${dir}/bare.mjs`, BARE_SCRIPT);
    await Deno.writeTextFile(`${dir}/floor.mjs`, FLOOR_SCRIPT);
    /** `deno run -A --quiet ...args`, as a user runs a script. */
    const denoRun = (...args: string[]): [string, string[]] => [
      Deno.execPath(),
      ["run", "-A", "--quiet", ...args],
    ];
    const courierOnce = (config: string): [string, string[]] => [
      Deno.execPath(),
      courierArgs("once", "-c", config, "--messenger-api", "http://127.0.0.1:9"),
    ];
    const commands: Record<string, [string, string[]]> = {
      courier: courierOnce(`${dir}/config.yml`),
      bare: denoRun(`${dir}/bare.mjs`, `${dir}/urls.json`),
    };
    if (variant.validators) {
      commands.courier1 = courierOnce(`${dir}/config1.yml`);
      commands.bare1 = denoRun(`${dir}/bare.mjs`, `${dir}/urls1.json`);
      commands.floor = denoRun(
        `${dir}/floor.mjs`,
        `${dir}/urls.json`,
        `${dir}/runOnce/feed_data/courier.db`,
      );
    }
    if (node !== null) commands.node = ["node", [`${dir}/bare.mjs`, `${dir}/urls.json`]];
    // The same state on a libSQL server on loopback (the libSQL project's Hrana test server,
    // a Python process: a real sqld answers faster), as `db_url` runs it.
    let hrana: Awaited<ReturnType<typeof startHrana>> | null = null;
    if (variant.validators && hranaMissing() === null) {
      await Deno.copyFile(`${dir}/runOnce/feed_data/courier.db`, `${dir}/remote.db`);
      hrana = await startHrana(`${dir}/remote.db`);
      await writeConfig(`${dir}/config_url.yml`, `${dir}/remote_data`, feeds, {
        db_url: hrana.url,
      });
      commands.db_url = courierOnce(`${dir}/config_url.yml`);
    }
    const runs: Record<string, number[]> = {};
    const order = Object.keys(commands);
    for (let i = 0; i < PROCESS_ROUNDS; i++) {
      for (let j = 0; j < order.length; j++) {
        const name = order[(i + j) % order.length];
        const [command, args] = commands[name];
        const t = performance.now();
        const out = await new Deno.Command(command, { args, stdout: "null", stderr: "piped" })
          .output();
        (runs[name] ??= []).push(performance.now() - t);
        if (out.code !== 0) {
          throw new Error(`${name}: ${new TextDecoder().decode(out.stderr)}`);
        }
      }
    }
    await hrana?.stop();
    console.log(`    processes   ${figure("courier once", runs.courier, runs.bare)}`);
    if (runs.db_url) {
      console.log(
        `                ${figure("courier once, db_url (Hrana on loopback)", runs.db_url)}`,
      );
    }
    console.log(`                ${figure("bare Deno fetch (deno run)", runs.bare)}`);
    if (runs.floor) {
      console.log(
        `                ${
          figure("floor: validators from SQLite + conditional fetch", runs.floor, runs.bare)
        }`,
      );
      const startUp = median(runs.courier1) - median(runs.bare1);
      const perFeeds = (median(runs.courier) - median(runs.courier1)) /
        (median(runs.bare) - median(runs.bare1));
      console.log(
        `                ${figure("courier once, 1 feed", runs.courier1)}; bare fetch of 1 URL ${
          ms(median(runs.bare1))
        }: courier's start-up ≈ ${startUp.toFixed(0)} ms; its other 499 feeds take ${
          perFeeds.toFixed(2)
        }× the bare fetch's other 499 URLs`,
      );
    }
    if (runs.node) {
      console.log(
        `                ${figure(`bare Node ${node} fetch`, runs.node)}   courier ${
          (median(runs.courier) / median(runs.node)).toFixed(2)
        }× it`,
      );
    }
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await run();
