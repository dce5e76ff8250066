import assert from "node:assert/strict";
import { parseFeed, type ParseOptions } from "../../src/feeds/parse.ts";
import { decodeFeedBytes } from "../../src/feeds/decode.ts";
import { FIXTURES } from "../support/feed_server.ts";
import { joinedPieces, random } from "../support/generated.ts";

function fixtures(): string[] {
  return [...Deno.readDirSync(FIXTURES)].filter((e) => e.isFile).map((e) =>
    decodeFeedBytes(Deno.readFileSync(FIXTURES + e.name)).text
  );
}

const PIECES = [
  "<rss>",
  "</rss>",
  "<channel>",
  "</channel>",
  "<item>",
  "</item>",
  "<entry>",
  "</entry>",
  "<title>",
  "</title>",
  "<b>",
  "</b>",
  "<br/>",
  "<p xml:base='/d/'>",
  "</p>",
  "<a:feed xmlns:a='http://www.w3.org/2005/Atom'>",
  "<a:entry>",
  "</a:entry>",
  "<x xmlns='http://purl.org/rss/1.0/'>",
  "</x>",
  " ",
  "\n",
  "\n  ",
  "text",
  "&amp;",
  "&#0;",
  "&bogus;",
  "<![CDATA[ ]]>",
  "<![CDATA[x]]>",
  "<![CDATA[]]>",
  "<!-- c -->",
];

/** parseFeed's reading, or the error it throws, as comparable values. */
function feedOf(xml: string, options: ParseOptions): unknown {
  try {
    return parseFeed(xml, "https://example.com/feed", null, options);
  } catch (error) {
    return { error: String(error) };
  }
}

function sameFeed(xml: string): void {
  for (const summaries of [true, false]) {
    assert.deepEqual(
      feedOf(xml, { summaries }),
      feedOf(xml, { summaries, wholeTree: true }),
      `input: ${JSON.stringify(xml)}`,
    );
  }
}

const FEED_PIECES = [
  ...PIECES,
  "<feed>",
  "</feed>",
  "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#' " +
  "xmlns='http://purl.org/rss/1.0/'>",
  "</rdf:RDF>",
  "<link>http://example.com/a</link>",
  "<guid>g</guid>",
  "<id>i</id>",
  "<pubDate>Wed, 31 Jan 2024 10:00:00 GMT</pubDate>",
  "&nbsp;",
  "x &lt;b&gt;y&lt;/b&gt;",
];

Deno.test("entries taken without their own text read as with the whole tree", () => {
  for (const xml of fixtures()) sameFeed(xml);
  const next = random(5);
  for (const xml of fixtures()) {
    for (let i = 0; i < 10; i++) sameFeed(xml.slice(0, Math.floor(next() * xml.length)));
  }
  for (const xml of joinedPieces(FEED_PIECES, 23, 20_000, 24)) sameFeed(xml);
});
