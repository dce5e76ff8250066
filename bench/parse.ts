/**
 * Parse benchmark, measured the way users run courier: `courier preview FILE --json` as a whole
 * process (here `deno run -A main.ts preview FILE --json`, since `deno compile` cannot download
 * its runtime offline) against python3-feedparser and rss-parser, each a whole process that
 * reads the file and prints its entries as JSON, round by round in the same run (the order
 * rotating). Prints medians and ranges of MB/s and of the per-round ratios (by wall time, and by
 * CPU time beside, which other work on a shared machine disturbs less), and each process's peak
 * RSS (VmHWM) and CPU time from /usr/bin/time. The in-process figures that follow (the parse
 * alone, with summaries, as a feed run parses) are a diagnosis.
 * Files: a generated RSS 2.0 feed of 19,000 items (12.6 MB) and an Atom feed of 15,500 entries
 * (13.9 MB), the sizes issue 14 measured.
 * Run alone with `deno run -A bench/parse.ts`.
 */
import { courierArgs } from "../tests/support/product.ts";
import { parseFeed } from "../src/feeds/parse.ts";

const RSS_ITEMS = 19_000;
const ATOM_ENTRIES = 15_500;
/** Whole-process rounds per file; every round runs each side once. */
const ROUNDS = 7;
/** In-process (diagnosis) runs per parser. */
const RUNS = 5;
const FEEDPARSER_RUNS = 1;

const FEEDPARSER_INSTALL = "apt-get install python3-feedparser (Debian's, for /usr/bin/python3)";
const RSS_PARSER_INSTALL = "deno cache npm:rss-parser@^3.13.0 (from the npm registry)";
const TIME_INSTALL = "apt-get install time (for /usr/bin/time)";

const PARA = "Lorem ipsum dolor sit amet, consectetur adipiscing elit &amp; sed do eiusmod " +
  "tempor incididunt ut labore et dolore magna aliqua. ";
const BASE_TIME = Date.UTC(2020, 0, 1);

/** A realistic RSS 2.0 feed: escaped HTML descriptions, CDATA content, namespaces. */
export function generateRss(items: number): string {
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" ` +
    `xmlns:content="http://purl.org/rss/1.0/modules/content/" ` +
    `xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">\n` +
    `<channel>\n<title>Bench feed</title>\n<link>https://example.com/</link>\n` +
    `<description>Benchmark</description>\n` +
    `<atom:link href="https://example.com/feed" rel="self" type="application/rss+xml"/>\n`,
  ];
  for (let i = 0; i < items; i++) {
    const date = new Date(BASE_TIME + (items - i) * 3_600_000).toUTCString();
    parts.push(
      `<item>\n<title>Item number ${i} &amp; friends</title>\n` +
        `<link>https://example.com/posts/${i}</link>\n` +
        `<guid isPermaLink="false">urn:uuid:bench-${i}</guid>\n<pubDate>${date}</pubDate>\n` +
        `<dc:creator>Author ${i % 17}</dc:creator>\n<category>cat${i % 9}</category>\n` +
        `<description>&lt;p&gt;${PARA}&lt;/p&gt;</description>\n` +
        `<content:encoded><![CDATA[<p>${PARA}</p><p><a href="/x/${i}">more</a></p>]]>` +
        `</content:encoded>\n</item>\n`,
    );
  }
  parts.push("</channel>\n</rss>\n");
  return parts.join("");
}

/** A large Atom 1.0 feed in the GitHub/Blogger shape: HTML content, several links. */
export function generateAtom(entries: number): string {
  const parts = [
    `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n` +
    `<title>Bench Atom</title>\n<id>urn:bench:atom</id>\n` +
    `<link rel="alternate" href="https://example.com/"/>\n<updated>2024-01-01T00:00:00Z</updated>\n`,
  ];
  for (let i = 0; i < entries; i++) {
    const date = new Date(BASE_TIME + (entries - i) * 3_600_000).toISOString();
    parts.push(
      `<entry>\n<id>tag:example.com,2024:entry-${i}</id>\n<title type="html">Entry ${i} ` +
        `&amp;lt;b&amp;gt;bold&amp;lt;/b&amp;gt;</title>\n` +
        `<link rel="alternate" type="text/html" href="https://example.com/e/${i}"/>\n` +
        `<link rel="replies" href="https://example.com/e/${i}#comments"/>\n` +
        `<published>${date}</published>\n<updated>${date}</updated>\n` +
        `<author><name>Author ${i % 13}</name></author>\n` +
        `<summary type="html">&lt;p&gt;${PARA}&lt;/p&gt;</summary>\n` +
        `<content type="html">&lt;p&gt;${PARA}${PARA}&lt;/p&gt;</content>\n</entry>\n`,
    );
  }
  parts.push("</feed>\n");
  return parts.join("");
}

interface WorkerResult {
  entries: number;
  seconds: number[];
  peakKb: number;
}

function peakKb(): number {
  const m = Deno.readTextFileSync("/proc/self/status").match(/VmHWM:\s+(\d+)/);
  return m ? Number(m[1]) : NaN;
}

/** Runs inside a subprocess: parses FILE `runs` times with one parser and prints JSON. */
async function worker(parser: string, file: string, runs: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const seconds: number[] = [];
  let entries = 0;
  if (parser === "courier") {
    const bytes = await Deno.readFile(file);
    for (let i = 0; i < runs; i++) {
      gc?.();
      const t = performance.now();
      entries = parseFeed(bytes, "https://example.com/feed").entries.length;
      seconds.push((performance.now() - t) / 1000);
    }
  } else {
    const { default: Parser } = await import("npm:rss-parser@^3.13.0");
    const text = await Deno.readTextFile(file);
    for (let i = 0; i < runs; i++) {
      gc?.();
      const t = performance.now();
      entries = (await new Parser().parseString(text)).items.length;
      seconds.push((performance.now() - t) / 1000);
    }
  }
  console.log(JSON.stringify({ entries, seconds, peakKb: peakKb() }));
}

const FEEDPARSER = `
import sys, time, json, feedparser
data = open(sys.argv[1], 'rb').read()
secs = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); d = feedparser.parse(data); secs.append(time.perf_counter() - t)
hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]
print(json.dumps({"entries": len(d.entries), "seconds": secs, "peakKb": int(hwm)}))
`;

async function measure(parser: string, file: string): Promise<WorkerResult> {
  const self = new URL(import.meta.url).pathname;
  const command = parser === "feedparser"
    ? new Deno.Command("/usr/bin/python3", {
      args: ["-c", FEEDPARSER, file, String(FEEDPARSER_RUNS)],
      stdout: "piped",
      stderr: "piped",
    })
    : new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--quiet",
        "--v8-flags=--expose-gc",
        self,
        "--worker",
        parser,
        file,
        String(RUNS),
      ],
      stdout: "piped",
      stderr: "piped",
    });
  const out = await command.output();
  if (!out.success) {
    throw new Error(`${parser} failed: ${new TextDecoder().decode(out.stderr).slice(0, 500)}`);
  }
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const range = (values: number[], digits: number) =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;

/** `python3 -c` source: feedparser reads FILE and prints its entries as JSON, as preview does. */
const FEEDPARSER_CLI = `
import sys, json, time, feedparser
d = feedparser.parse(sys.argv[1])
def date(e):
    t = e.get("published_parsed") or e.get("updated_parsed")
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", t) if t else None
json.dump({"title": d.feed.get("title"), "entries": [{"id": e.get("id"), "link": e.get("link"),
    "title": e.get("title"), "published": date(e)} for e in d.entries]}, sys.stdout, indent=2)
`;

interface Side {
  name: string;
  command: string[];
}

function sides(file: string): Side[] {
  const here = (path: string) => new URL(path, import.meta.url).pathname;
  return [
    {
      name: "courier",
      command: [Deno.execPath(), ...courierArgs("preview", file, "--json")],
    },
    {
      name: "rss-parser",
      command: [Deno.execPath(), "run", "-A", "--quiet", here("_rss_parser.ts"), file],
    },
    { name: "feedparser", command: ["/usr/bin/python3", "-c", FEEDPARSER_CLI, file] },
  ];
}

interface Run {
  seconds: number;
  /** User + system CPU seconds, or NaN without /usr/bin/time. */
  cpu: number;
  /** Peak RSS in MB, or NaN without /usr/bin/time. */
  peakMb: number;
  entries: number;
}

let haveTime: boolean | undefined;

/** Runs one side as a whole process, its stdout read to the end, timed from spawn to exit. */
async function runOnce(side: Side, dir: string): Promise<Run> {
  haveTime ??= await Deno.stat("/usr/bin/time").then(() => true, () => false);
  const rssFile = `${dir}/peak-${side.name}`;
  const [program, ...args] = haveTime
    ? ["/usr/bin/time", "-f", "%M %U %S", "-o", rssFile, ...side.command]
    : side.command;
  const start = performance.now();
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  const seconds = (performance.now() - start) / 1000;
  if (!out.success) {
    throw new Error(`${side.name} failed: ${new TextDecoder().decode(out.stderr).slice(0, 300)}`);
  }
  const [kb, user, system] = haveTime
    ? (await Deno.readTextFile(rssFile)).trim().split(/\s+/).map(Number)
    : [NaN, NaN, NaN];
  const entries = (JSON.parse(new TextDecoder().decode(out.stdout)).entries as unknown[]).length;
  return { seconds, cpu: user + system, peakMb: kb / 1024, entries };
}

/** Whether a peer can run at all; if not, says how to install it. */
async function available(side: Side, sample: string, dir: string): Promise<boolean> {
  const [probe] = sides(sample).filter((s) => s.name === side.name);
  try {
    await runOnce(probe, dir);
    return true;
  } catch {
    const how = side.name === "feedparser" ? FEEDPARSER_INSTALL : RSS_PARSER_INSTALL;
    console.log(`  ${side.name} is missing, skipped: ${how}`);
    return false;
  }
}

async function wholeProcess(label: string, file: string, mb: number, dir: string) {
  console.log(`\nparse: ${label}, ${mb.toFixed(1)} MB, whole processes, ${ROUNDS} rounds`);
  const sample = `${dir}/sample.xml`;
  await Deno.writeTextFile(sample, generateRss(3));
  const all = sides(file);
  const present: Side[] = [all[0]];
  for (const peer of all.slice(1)) if (await available(peer, sample, dir)) present.push(peer);
  const runs: Record<string, Run[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < present.length; i++) {
      const side = present[(round + i) % present.length];
      (runs[side.name] ??= []).push(await runOnce(side, dir));
    }
  }
  for (const side of present) {
    const r = runs[side.name];
    const mbps = r.map((x) => mb / x.seconds);
    const peaks = r.map((x) => x.peakMb);
    console.log(
      `  ${side.name.padEnd(11)} ${median(mbps).toFixed(1).padStart(6)} MB/s ` +
        `(range ${range(mbps, 1)})  ${median(r.map((x) => x.seconds)).toFixed(3)} s ` +
        `(cpu ${median(r.map((x) => x.cpu)).toFixed(2)} s)  ` +
        `peak RSS ${median(peaks).toFixed(0)} MB (max ${Math.max(...peaks).toFixed(0)})  ` +
        `${r[0].entries} entries`,
    );
  }
  const courier = runs.courier;
  const parts: string[] = [];
  for (const [peer, target] of [["feedparser", 30], ["rss-parser", 3]] as const) {
    const theirs = runs[peer];
    if (!theirs) {
      parts.push(`vs ${peer} n/a`);
      continue;
    }
    const ratios = courier.map((c, i) => theirs[i].seconds / c.seconds);
    const cpu = courier.map((c, i) => theirs[i].cpu / c.cpu);
    parts.push(
      `vs ${peer} ${median(ratios).toFixed(1)}x (range ${range(ratios, 1)}; target >= ${target}x;` +
        ` by cpu time ${median(cpu).toFixed(1)}x)`,
    );
  }
  const peak = Math.max(...courier.map((c) => c.peakMb));
  console.log(`  courier ${parts.join(", ")}`);
  console.log(
    haveTime
      ? `  courier peak RSS ${peak.toFixed(0)} MB at most (target <= 150 MB)`
      : `  peak RSS not measured: ${TIME_INSTALL}`,
  );
}

async function inProcess(file: string, mb: number) {
  const parts: string[] = [];
  const mbps: Record<string, number> = {};
  for (const parser of ["courier", "rss-parser", "feedparser"]) {
    try {
      const r = await measure(parser, file);
      mbps[parser] = mb / median(r.seconds);
      parts.push(
        `${parser} ${mbps[parser].toFixed(1)} MB/s, peak ${(r.peakKb / 1024).toFixed(0)} MB`,
      );
    } catch {
      parts.push(`${parser} n/a`);
    }
  }
  const ratio = (peer: string) =>
    mbps[peer] ? `${(mbps.courier / mbps[peer]).toFixed(1)}x ${peer}` : `${peer} n/a`;
  console.log(`  in-process (diagnosis, parse only): ${parts.join("; ")}`);
  console.log(`  in-process courier: ${ratio("feedparser")}, ${ratio("rss-parser")}`);
}

export async function run(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "courier-bench-parse-" });
  try {
    const files = [
      {
        label: `RSS 2.0, ${RSS_ITEMS} items`,
        path: `${dir}/feed.rss`,
        text: generateRss(RSS_ITEMS),
      },
      {
        label: `Atom 1.0, ${ATOM_ENTRIES} entries`,
        path: `${dir}/feed.atom`,
        text: generateAtom(ATOM_ENTRIES),
      },
    ];
    for (const file of files) {
      await Deno.writeTextFile(file.path, file.text);
      const mb = new TextEncoder().encode(file.text).length / 1e6;
      await wholeProcess(file.label, file.path, mb, dir);
      await inProcess(file.path, mb);
    }
    console.log("  (the machine may be shared: compare the ratios, measured side by side)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--worker") {
    await worker(Deno.args[1], Deno.args[2], Number(Deno.args[3]));
  } else {
    await run();
  }
}
