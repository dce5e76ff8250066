import assert from "node:assert/strict";
import { atomEntry, atomHead, atomText, pickAtomLink } from "../../src/feeds/atom.ts";
import { parseXml, type XmlElement } from "../../src/feeds/xml.ts";

const BASE = "https://example.com/feed.xml";
const NS = 'xmlns="http://www.w3.org/2005/Atom"';

function parse(xml: string): XmlElement {
  return parseXml(xml, BASE, undefined)[0];
}

Deno.test("atom: text constructs honour type", () => {
  const text = (type: string, body: string) =>
    atomText(parse(`<title ${NS} type="${type}">${body}</title>`));
  assert.equal(text("text", "&lt;/example&gt;"), "</example>");
  assert.equal(text("html", "&lt;b&gt;Bold&lt;/b&gt;&lt;!-- c --&gt;"), "Bold");
  assert.equal(text("xhtml", '<div xmlns="http://www.w3.org/1999/xhtml"><b>X</b> y</div>'), "X y");
});

Deno.test("atom: links: an HTML alternate, any alternate, an enclosure; never license", () => {
  const links = (xml: string) => parse(`<entry ${NS}>${xml}</entry>`).children;
  assert.equal(
    pickAtomLink(links(
      '<link rel="license" href="https://cc/by"/><link rel="alternate" type="application/json" ' +
        'href="/j"/><link href="/h"/>',
    )),
    "https://example.com/h",
  );
  assert.equal(
    pickAtomLink(links('<link rel="alternate" type="text/plain" href="/t"/>')),
    "https://example.com/t",
  );
  assert.equal(
    pickAtomLink(links('<link rel="enclosure" href="/e.mp3"/>')),
    "https://example.com/e.mp3",
  );
  assert.equal(
    pickAtomLink(
      links('<link rel="license" href="https://cc/by"/><link rel="related" href="/r"/>'),
    ),
    null,
  );
});

Deno.test("atom: an entry without a usable link takes a web-address id as its link", () => {
  const entry = atomEntry(
    parse(
      `<entry ${NS}><id>https://e/1</id><title>T</title>` +
        '<link rel="license" href="https://cc/by"/><updated>2024-01-02T00:00:00Z</updated>' +
        "<summary>S</summary></entry>",
    ),
    "atom:",
  );
  assert.deepEqual(
    { id: entry.id, link: entry.link, title: entry.title, summary: entry.summary },
    { id: "https://e/1", link: "https://e/1", title: "T", summary: "S" },
  );
  assert.equal(entry.published?.toISOString(), "2024-01-02T00:00:00.000Z");
  const tag = atomEntry(parse(`<entry ${NS}><id>tag:e,2024:1</id></entry>`), "atom:");
  assert.equal(tag.link, null);
});

Deno.test("atom: the feed's title and page", () => {
  const feed = parse(
    `<feed ${NS}><title type="html">A &amp;amp; B</title><link rel="self" href="/f"/>` +
      '<link href="https://e/"/></feed>',
  );
  assert.deepEqual(atomHead(feed, "atom:"), { title: "A & B", link: "https://e/" });
});

Deno.test("atom: categories by term (label is only for display), else the element's text", () => {
  const entry = atomEntry(
    parse(
      `<entry ${NS}><id>i</id><title>T</title><category term="rust" label="Rust language"/>` +
        `<category term=" web  dev "/><category>Legacy text</category><category term=""/></entry>`,
    ),
    "atom:",
  );
  assert.deepEqual(entry.categories, ["rust", "web dev", "Legacy text"]);
  assert.equal(atomEntry(parse(`<entry ${NS}><id>i</id></entry>`), "atom:").categories, undefined);
});

Deno.test("parse: categories of a whole RSS and Atom document reach the entries", async () => {
  const { parseFeed } = await import("../../src/feeds/parse.ts");
  const rss = parseFeed(
    `<rss version="2.0"><channel><title>c</title><item><guid>1</guid><title>T</title>` +
      `<category>News</category></item></channel></rss>`,
    BASE,
  );
  assert.deepEqual(rss.entries[0].categories, ["News"]);
  const atom = parseFeed(
    `<feed ${NS}><title>f</title><entry><id>1</id><title>T</title><category term="tag"/></entry></feed>`,
    BASE,
  );
  assert.deepEqual(atom.entries[0].categories, ["tag"]);
});
