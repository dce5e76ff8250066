/**
 * What the feed benchmarks (bench/once.ts, bench/forward.ts) share: the local feed server in a
 * process of its own, the config file that points courier at it, the side processes that run a
 * measured round per line read, and the statistics they print.
 */
import { dump as stringify } from "js-yaml";
import type { FeedSettings } from "../src/config/types.ts";
import { linesOf } from "./_once_side.ts";

/** Entries per feed served. */
export const ENTRIES = 50;

/** `deno eval` source of the server: ARGS are the feed count, `validators` or not, delay ms. */
const SERVER = `
const [feeds, validators, delayMs] = [Number(Deno.args[0]), Deno.args[1] === "validators", Number(Deno.args[2] ?? 0)];
const items = (f) => Array.from({ length: ${ENTRIES} }, (_, i) => {
  const date = new Date(Date.UTC(2024, 0, 1, 0, i)).toUTCString();
  return "<item><title>Feed " + f + " entry " + i + " &amp; more</title><link>https://example.org/" + f +
    "/" + i + "</link><guid>https://example.org/" + f + "/" + i + "</guid><pubDate>" + date +
    "</pubDate><description>Some summary text for entry " + i + ", long enough to be realistic." +
    "</description></item>";
}).reverse().join("\\n");
const bodies = new Map();
for (let f = 0; f < feeds; f++) {
  bodies.set("/feed" + f + ".xml", '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>' +
    "<title>Feed " + f + "</title><link>https://example.org/</link><description>d</description>" +
    items(f) + "</channel></rss>");
}
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

export interface FeedServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves `feeds` RSS feeds of ENTRIES entries at /feedN.xml, every body unchanged for the life
 * of the server; with `validators`, ETag and Last-Modified, and 304 to a conditional request.
 */
export async function startFeedServer(
  feeds: number,
  validators: boolean,
  delayMs = 0,
): Promise<FeedServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", SERVER, String(feeds), validators ? "validators" : "plain", String(delayMs)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  return {
    port: Number(value!.trim()),
    stop: async () => {
      child.kill("SIGTERM");
      await reader.cancel();
      await child.status;
    },
  };
}

/** Writes a config for `feeds` (as the loader would read them back) with its state in dataDir. */
export async function writeConfig(
  path: string,
  dataDir: string,
  feeds: FeedSettings[],
  /** More top-level keys (first_time_limit, ...). */
  extra: Record<string, unknown> = {},
) {
  await Deno.writeTextFile(
    path,
    stringify({
      messenger_auth_token: "123456:bench-token-unused",
      data_dir: dataDir,
      ...extra,
      feeds: feeds.map((f) => ({
        name: f.name,
        channel: f.channel,
        url: f.urls[0],
        cron: f.cron,
        type: f.type,
      })),
    }),
  );
}

/**
 * A benchmark side in its own process, so that each side pays for its own garbage: it prints
 * "ready" once set up, then runs one round per line written to it and prints its milliseconds.
 */
export class Side {
  private constructor(
    readonly name: string,
    private readonly child: Deno.ChildProcess,
    private readonly lines: AsyncIterator<string>,
    private readonly stdin: WritableStreamDefaultWriter<Uint8Array>,
  ) {}

  static async start(name: string, script: string, args: string[]): Promise<Side> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, ...args],
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

/**
 * Runs `rounds` rounds of every side, interleaved, each side first as often as the others;
 * returns each side's times by name.
 */
export async function interleave(sides: Side[], rounds: number): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = {};
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < sides.length; j++) {
      const side = sides[(i + j) % sides.length];
      (times[side.name] ??= []).push(await side.round());
    }
  }
  return times;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const ms = (x: number) => `${x.toFixed(0).padStart(5)} ms`;
