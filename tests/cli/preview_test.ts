import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import {
  asExpected,
  expectedFor,
  fixtureNames,
  FIXTURES,
  startFeedServer,
} from "../support/feed_server.ts";

/** Runs `f` over `items` with at most `limit` at a time (each one spawns a process). */
async function pool<T>(items: T[], limit: number, f: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(Array.from({ length: limit }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await f(item);
  }));
}

Deno.test("preview --json over HTTP prints the expected entries for every fixture", async () => {
  const server = startFeedServer();
  try {
    await pool(fixtureNames(), 4, async (name) => {
      const url = `${server.base}/feeds/${name}`;
      const expected = expectedFor(name);
      const result = await runCli(["preview", url, "--json"]);
      if ("error" in expected) {
        // Over HTTP a zero-byte document is caught before parsing.
        const empty = Deno.statSync(FIXTURES + name).size === 0;
        const reason = empty ? "empty response body" : expected.error;
        assert.equal(result.code, 1, name);
        assert.equal(result.stdout, "", name);
        assert.equal(result.stderr, `courier preview: ${url}: ${reason}\n`, name);
        return;
      }
      assert.equal(result.code, 0, `${name}: ${result.stderr}`);
      // Expectations assume https://fixtures.test; here the base is plain http, which also
      // changes what a protocol-relative link resolves to.
      const rebased = JSON.parse(
        JSON.stringify(expected).replaceAll("https://fixtures.test", server.base)
          .replaceAll("https://cdn.example.net", "http://cdn.example.net"),
      );
      const { warnings, ...rest } = rebased;
      assert.deepEqual(JSON.parse(result.stdout), rest, name);
      const printed = result.stderr.split("\n").filter(Boolean);
      assert.deepEqual(printed, warnings.map((w: string) => `warning: ${w}`), name);
    });
  } finally {
    await server.close();
  }
});

Deno.test("preview FILE --json prints what the complete parser reads, for every fixture", async () => {
  // preview FILE loads the HTML parser only for a document that needs it (reading it again):
  // its output must be the complete parser's, whichever way each fixture goes.
  const { parseFeed } = await import("../../src/feeds/parse.ts");
  const { fileUrlOf } = await import("../../src/cli/preview_run.ts");
  await pool(fixtureNames(), 4, async (name) => {
    const path = FIXTURES + name;
    const result = await runCli(["preview", path, "--json"]);
    const expected = expectedFor(name);
    if ("error" in expected) {
      assert.equal(result.code, 1, name);
      assert.equal(result.stderr, `courier preview: ${path}: ${expected.error}\n`);
      return;
    }
    assert.equal(result.code, 0, `${name}: ${result.stderr}`);
    const parsed = parseFeed(Deno.readFileSync(path), fileUrlOf(path), null, {
      summaries: false,
    });
    assert.deepEqual(JSON.parse(result.stdout), asExpected(parsed), name);
    const printed = result.stderr.split("\n").filter(Boolean);
    assert.deepEqual(printed, parsed.warnings.map((w) => `warning: ${w}`), name);
  });
});

Deno.test("preview of an HTML page exits 1 with one line naming the URL", async () => {
  const server = startFeedServer();
  try {
    const url = `${server.base}/status/404`;
    const result = await runCli(["preview", url]);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `courier preview: ${url}: HTTP 404 Not Found\n`);
    const page = `${server.base}/feeds/html-page.html`;
    const html = await runCli(["preview", page]);
    assert.equal(html.code, 1);
    assert.equal(html.stderr, `courier preview: ${page}: not a feed: it is an HTML page\n`);
  } finally {
    await server.close();
  }
});

Deno.test("preview FILE prints title, link, date and id in send order", async () => {
  const result = await runCli(["preview", `${FIXTURES}rss20.xml`]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  const lines = result.stdout.split("\n");
  assert.equal(lines[0], "Liftoff News (rss2, 3 entries)");
  assert.deepEqual(lines.slice(2, 6), [
    "1. The Engine That Does More",
    "   link: http://liftoff.msfc.nasa.gov/news/2003/news-VASIMR.asp",
    "   date: 2003-05-27T08:37:32Z",
    "   id:   http://liftoff.msfc.nasa.gov/2003/05/27.html#item571",
  ]);
  assert.match(result.stdout, /3\. Star City\n/);
});

Deno.test("preview --type warns about a mismatch but still prints the feed", async () => {
  const result = await runCli(["preview", `${FIXTURES}atom10.xml`, "--type", "rss", "--json"]);
  assert.equal(result.code, 0);
  assert.equal(result.stderr, "warning: the feed is Atom 1.0 but its type is set to rss\n");
  assert.equal(JSON.parse(result.stdout).format, "atom10");
});

Deno.test("preview usage errors exit 2; a missing file exits 1", async () => {
  const none = await runCli(["preview"]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /expected one URL or FILE/);
  const badType = await runCli(["preview", "x.xml", "--type", "json"]);
  assert.equal(badType.code, 2);
  assert.match(badType.stderr, /--type must be "rss" or "atom"/);
  const dir = await Deno.makeTempDir();
  const missing = await runCli(["preview", `${dir}/nope.xml`]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, `courier preview: ${dir}/nope.xml: no such file\n`);
  await Deno.remove(dir);
});

Deno.test("preview of a pipe reads it once, HTML titles included", async () => {
  // cdata.xml's titles need the HTML parser, which a regular file would be read again for.
  const xml = Deno.readTextFileSync(`${FIXTURES}cdata.xml`);
  const result = await runCli(["preview", "/dev/stdin", "--json"], { stdin: xml });
  assert.equal(result.code, 0, result.stderr);
  const { warnings: _, ...expected } = expectedFor("cdata.xml") as Record<string, unknown>;
  const printed = JSON.parse(result.stdout);
  assert.deepEqual(printed.entries.map((e: { title: string }) => e.title), [
    ...(expected.entries as { title: string }[]).map((e) => e.title),
  ]);
  assert.equal(printed.title, expected.title);
});

Deno.test("preview --json writes exactly what JSON.stringify(value, null, 2) writes", async () => {
  const titles = [
    'say "hi"',
    "back\\slash",
    "tab\there",
    "line\u2028sep",
    "emoji 😀",
    "</script>",
    "",
  ];
  const items = titles.map((t, i) =>
    `<item><title><![CDATA[${t}]]></title><guid>id-${i} "q"</guid>` +
    (i % 2 ? `<link>https://e.example/${i}</link>` : "") +
    (i % 3 ? `<pubDate>Wed, 0${i + 1} Jan 2024 10:00:00 GMT</pubDate>` : "") + "</item>"
  ).join("");
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/tricky.xml`;
    await Deno.writeTextFile(
      path,
      `<rss version="2.0"><channel><title>T "x"</title>${items}</channel></rss>`,
    );
    const result = await runCli(["preview", path, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, JSON.stringify(JSON.parse(result.stdout), null, 2) + "\n");
    const printed = JSON.parse(result.stdout).entries.map((e: { title: string }) => e.title);
    // Titles are plain text, whitespace collapsed; the quotes and the backslash stay.
    assert.deepEqual(printed.toSorted(), titles.map((t) => t.replace(/\s+/g, " ")).toSorted());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
