/**
 * One side of the steady-state `once` benchmark (bench/once.ts), in a process of its own so
 * that each side pays for its own garbage: measured in one heap, whichever side ran after the
 * other collected the other's garbage, and the ratio moved with the order of the sides.
 *
 *   deno run -A bench/_once_side.ts SIDE PORT DIR FEEDS CONCURRENCY
 *
 * SIDE is runOnce, bare or floor. The process sets up (a first run records every entry as
 * seen; a few warm-up rounds), prints "ready", then runs one round per line read from stdin
 * and prints its milliseconds.
 */
import type { FeedSettings } from "../src/config/types.ts";
import { bodyHashOf } from "../src/feeds/body_hash.ts";
import { USER_AGENT } from "../src/feeds/fetch.ts";
import { readFeed } from "../src/feeds/read.ts";
import { runOnce } from "../src/forward/once.ts";
import { createLogger } from "../src/log/logger.ts";
import type { Outbox } from "../src/messenger/bot_api.ts";
import { Store } from "../src/store/db.ts";
import { LastSuccessFile } from "../src/store/last_success.ts";

const WARM_UP = 3;

/** The feeds of the benchmark's server, as runOnce takes them. */
export function benchFeeds(port: number, count: number): FeedSettings[] {
  return Array.from({ length: count }, (_, f) => ({
    name: `feed${f}`,
    channel: `@bench_chan${f % 50}`,
    urls: [`http://127.0.0.1:${port}/feed${f}.xml`],
    cron: "*/5 * * * *",
    type: "rss",
    rhash: "",
    proxy: null,
    linkText: "Link",
    firstTimeLimit: 0, // the first run records everything as seen and sends nothing
  }));
}

/** The bare baseline: fetch every URL and read its body, `concurrency` at a time. */
async function bareFetch(urls: string[], concurrency: number) {
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const r = await fetch(urls[next++]);
      await r.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const nothingToSend: Outbox = {
  send: () => Promise.reject(new Error("steady state: nothing should be sent")),
};

const FLOOR_HEADERS = {
  "user-agent": USER_AGENT,
  "accept": "application/rss+xml, application/atom+xml, */*;q=0.8",
};

/**
 * The least a steady-state run can do, as one flat loop: per feed, look up its validators,
 * fetch with headers and a timeout, hash the body and compare, record the run and the success
 * time; then write both out. No redirects, size cap, error naming or delivery order, and no
 * conditional request (it is measured against servers without validators only).
 */
async function floorRun(
  feeds: FeedSettings[],
  store: Store,
  successLog: LastSuccessFile,
  concurrency: number,
) {
  let next = 0;
  const worker = async () => {
    while (next < feeds.length) {
      const feed = feeds[next++];
      const startedAt = new Date();
      const url = feed.urls[0];
      const stored = (await store.validators(feed.name)).get(url);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 30_000);
      const response = await fetch(url, { headers: FLOOR_HEADERS, signal: controller.signal });
      const body = new Uint8Array(await response.arrayBuffer());
      clearTimeout(timer);
      const hash = bodyHashOf(url, response.headers.get("content-type"), body);
      if (hash !== stored?.bodyHash) throw new Error(`${url} changed`);
      const finishedAt = new Date();
      const counts = { fetched: 0, new: 0, sent: 0, failed: 0, skipped: 0 };
      const run = { feed: feed.name, startedAt, finishedAt, outcome: "ok" as const, error: null };
      await store.finishRun({ ...run, ...counts });
      void successLog.record(feed.name, finishedAt);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  successLog.writeNow();
  await Promise.all([store.flush(), successLog.flush()]);
}

/** The lines of a stream of text, without their newlines. */
export async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
}

/** Sets a side up and returns one round of it. */
async function prepare(
  side: string,
  feeds: FeedSettings[],
  dataDir: string,
  concurrency: number,
): Promise<{ round: () => Promise<unknown>; close: () => void }> {
  const urls = feeds.map((f) => f.urls[0]);
  if (side === "bare") return { round: () => bareFetch(urls, concurrency), close: () => {} };
  const logger = createLogger({ format: "text", color: false, level: "error", write: () => {} });
  const store = (await Store.open(`${dataDir}/feed_data`))!;
  const successLog = new LastSuccessFile(`${dataDir}/last_success.yml`);
  const once = async () => {
    const r = await runOnce({
      feeds,
      read: readFeed,
      state: store,
      outbox: nothingToSend,
      successLog,
      logger,
      concurrency,
    });
    const failed = r.results.find((x) => x.error !== null || x.sent !== 0);
    if (failed) throw new Error(`not steady: ${failed.feed}: ${failed.error}`);
  };
  await once(); // records every entry as seen, and the validators
  const round = side === "floor" ? () => floorRun(feeds, store, successLog, concurrency) : once;
  return { round, close: () => store.close() };
}

if (import.meta.main) {
  const [side, port, dataDir, feedCount, concurrency] = Deno.args;
  const feeds = benchFeeds(Number(port), Number(feedCount));
  const { round, close } = await prepare(side, feeds, dataDir, Number(concurrency));
  for (let i = 0; i < WARM_UP; i++) await round();
  const encoder = new TextEncoder();
  const say = (line: string) => Deno.stdout.writeSync(encoder.encode(`${line}\n`));
  say("ready");
  for await (const _ of linesOf(Deno.stdin.readable)) {
    const t = performance.now();
    await round();
    say(String(performance.now() - t));
  }
  close();
}
