/**
 * Steady-state `courier once`: 500 local feeds × 50 entries, every entry already seen, so a run
 * is fetch + parse + "anything new?" + bookkeeping. Compared with a bare concurrent fetch of the
 * same URLs (fetch and read the bodies, nothing else) at the same concurrency, measured in the
 * same run. The feeds are served by a separate process, so the server's work is not on the
 * measured thread (on a 2-core machine it still competes for the CPU with both sides).
 * The server sends no validators, so every run fetches every body in full (the worst case;
 * with ETags most feeds would answer 304); courier then recognises each unchanged body by the
 * hash stored after the last successful run and does not parse it.
 *
 * Two comparisons: in-process (runOnce vs fetch loop) and whole processes (`courier once` vs a
 * `deno eval` fetch loop; both pay Deno's start-up).
 */
import { stringify } from "yaml";
import type { FeedSettings } from "../src/config/types.ts";
import { readFeed } from "../src/feeds/mod.ts";
import { runOnce } from "../src/forward/once.ts";
import { Semaphore } from "../src/forward/turns.ts";
import { createLogger } from "../src/log/logger.ts";
import type { Outbox } from "../src/messenger/bot_api.ts";
import { Store } from "../src/store/db.ts";
import { LastSuccessFile } from "../src/store/last_success.ts";

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
const [etags, delayMs] = [Deno.args[0] === "etag", Number(Deno.args[1] ?? 0)];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(port) },
  async (req) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const path = new URL(req.url).pathname;
    const body = bodies.get(path);
    if (!body) return new Response("no", { status: 404 });
    const headers = { "content-type": "application/rss+xml" };
    if (etags) {
      headers.etag = '"' + path + '"';
      if (req.headers.get("if-none-match") === headers.etag) return new Response(null, { status: 304, headers });
    }
    return new Response(body, { headers });
  });
await server.finished;
`;

const BARE = (urls: string[]) => `
const urls = ${JSON.stringify(urls)};
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

async function startServer(etags: boolean, delayMs: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", SERVER, etags ? "etag" : "plain", String(delayMs)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  return { port: Number(value!.trim()), child, reader };
}

/** The bare baseline: fetch every URL and read its body, CONCURRENCY at a time. */
async function bareFetch(urls: string[]) {
  const slots = new Semaphore(CONCURRENCY);
  await Promise.all(urls.map((url) =>
    slots.run(async () => {
      const r = await fetch(url);
      await r.arrayBuffer();
    })
  ));
}

const nothingToSend: Outbox = {
  send: () => Promise.reject(new Error("steady state: nothing should be sent")),
};

interface Variant {
  label: string;
  etags: boolean;
  delayMs: number;
  rounds: number;
  processes: boolean;
}

const VARIANTS: Variant[] = [
  {
    label: "localhost, no validators (every body fetched in full, unchanged)",
    etags: false,
    delayMs: 0,
    rounds: ROUNDS,
    processes: true,
  },
  {
    label: "localhost, ETags (feeds answer 304)",
    etags: true,
    delayMs: 0,
    rounds: ROUNDS,
    processes: false,
  },
  {
    label: "20 ms site latency, no validators",
    etags: false,
    delayMs: 20,
    rounds: 5,
    processes: false,
  },
];

export async function run(): Promise<void> {
  console.log(
    `steady-state once: ${FEEDS} feeds × ${ENTRIES} entries, all seen, concurrency ${CONCURRENCY} (medians)`,
  );
  for (const variant of VARIANTS) await measure(variant);
}

async function measure(variant: Variant): Promise<void> {
  const server = await startServer(variant.etags, variant.delayMs);
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-once-" });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const urls = Array.from({ length: FEEDS }, (_, f) => `${base}/feed${f}.xml`);
    const feeds: FeedSettings[] = urls.map((url, f) => ({
      name: `feed${f}`,
      channel: `@bench_chan${f % 50}`,
      urls: [url],
      cron: "*/5 * * * *",
      type: "rss",
      rhash: "",
      proxy: null,
      linkText: "Link",
      firstTimeLimit: 0, // the first run records everything as seen and sends nothing
    }));
    const logger = createLogger({ format: "text", color: false, level: "error", write: () => {} });
    const store = (await Store.open(`${dir}/data/feed_data`))!;
    const successLog = new LastSuccessFile(`${dir}/data/last_success.yml`);
    const once = () =>
      runOnce({
        feeds,
        read: readFeed,
        state: store,
        outbox: nothingToSend,
        successLog,
        logger,
        concurrency: CONCURRENCY,
      });
    const first = await once();
    const failed = first.results.filter((r) => r.error !== null);
    if (failed.length > 0) throw new Error(`bench setup failed: ${failed[0].error}`);
    await bareFetch(urls); // warm-up

    const courier: number[] = [];
    const bare: number[] = [];
    const timeCourier = async () => {
      const t = performance.now();
      const r = await once();
      courier.push(performance.now() - t);
      if (r.results.some((x) => x.error !== null || x.sent !== 0)) throw new Error("not steady");
    };
    const timeBare = async () => {
      const t = performance.now();
      await bareFetch(urls);
      bare.push(performance.now() - t);
    };
    // Each side goes first in half of the rounds, so neither always inherits the other's
    // garbage and the server's state.
    for (let i = 0; i < variant.rounds; i++) {
      if (i % 2 === 0) {
        await timeCourier();
        await timeBare();
      } else {
        await timeBare();
        await timeCourier();
      }
    }
    store.close();

    const c = median(courier), b = median(bare);
    console.log(`  ${variant.label}`);
    console.log(
      `    in-process  runOnce ${ms(c)}   bare fetch ${ms(b)}   ratio ${(c / b).toFixed(2)}×`,
    );
    if (!variant.processes) return;
    // Whole processes: the CLI against the same state, and a bare fetch script.
    await Deno.writeTextFile(
      `${dir}/config.yml`,
      stringify({
        messenger_auth_token: "123456:bench-token-unused",
        data_dir: `${dir}/data`,
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
      await new Deno.Command(Deno.execPath(), { args: ["eval", BARE(urls)] }).output();
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
