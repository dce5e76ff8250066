/**
 * Parse benchmark: courier's feed parser against python3-feedparser and rss-parser (npm), each
 * in its own subprocess so peak RSS (VmHWM) is comparable, on a generated ~12 MB RSS 2.0 feed of
 * 20,000 items and a large Atom feed. Prints the median of several runs in MB/s, peak RSS and
 * the ratios. Run alone with `deno run -A bench/parse.ts`.
 */
import { parseFeed } from "../src/feeds/mod.ts";

const RSS_ITEMS = 20_000;
const ATOM_ENTRIES = 12_000;
const RUNS = 5;
const FEEDPARSER_RUNS = 3;

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
      console.log(`\nparse: ${file.label}, ${mb.toFixed(1)} MB`);
      const rows: Record<string, { mbps: number; peakMb: number; entries: number }> = {};
      for (const parser of ["courier", "rss-parser", "feedparser"]) {
        const r = await measure(parser, file.path);
        rows[parser] = {
          mbps: mb / median(r.seconds),
          peakMb: r.peakKb / 1024,
          entries: r.entries,
        };
        const runs = r.seconds.map((s) => (s * 1000).toFixed(0)).join("/");
        console.log(
          `  ${parser.padEnd(11)} ${rows[parser].mbps.toFixed(1).padStart(7)} MB/s  ` +
            `peak RSS ${rows[parser].peakMb.toFixed(0).padStart(4)} MB  ` +
            `${r.entries} entries  (runs ms: ${runs})`,
        );
      }
      const c = rows.courier;
      const vsFeedparser = c.mbps / rows.feedparser.mbps;
      const vsRssParser = c.mbps / rows["rss-parser"].mbps;
      console.log(
        `  courier vs feedparser ${vsFeedparser.toFixed(1)}x (target >= 20x), ` +
          `vs rss-parser ${vsRssParser.toFixed(2)}x (target >= 1.5x), ` +
          `peak RSS ${c.peakMb.toFixed(0)} MB (target <= 250 MB)`,
      );
    }
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
