import assert from "node:assert/strict";
import { channelTitleAndLink, rssEntry } from "../../src/feeds/rss.ts";
import { parseXml } from "../../src/feeds/xml.ts";

const BASE = "https://example.com/feed.xml";

function item(inner: string) {
  return rssEntry(parseXml(`<item>${inner}</item>`, BASE, undefined)[0], "");
}

Deno.test("rss: link, then atom:link, then a permalink guid, then the enclosure", () => {
  assert.equal(item("<link>/a</link><guid>https://e/g</guid>").link, "https://example.com/a");
  const atom = '<atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" ' +
    'href="https://e/atom"/>';
  assert.equal(item(atom).link, "https://e/atom");
  assert.equal(item("<guid>https://e/g</guid>").link, "https://e/g");
  assert.equal(item('<guid isPermaLink="false">https://e/g</guid>').link, null);
  assert.equal(item('<enclosure url="https://cdn/e.mp3"/>').link, "https://cdn/e.mp3");
});

Deno.test("rss: id, title as plain text unless it is HTML, dates, summary", () => {
  const entry = item(
    "<title>Use &lt;br&gt; for breaks</title><guid>g-1</guid>" +
      "<pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate>" +
      "<description>&lt;p&gt;One&lt;/p&gt;&lt;p&gt;Two&lt;/p&gt;</description>",
  );
  assert.equal(entry.id, "g-1");
  assert.equal(entry.title, "Use <br> for breaks");
  assert.equal(entry.published?.toISOString(), "2024-01-01T00:00:00.000Z");
  assert.equal(entry.summary, "One Two");
  assert.equal(item("<title>&lt;b&gt;Bold&lt;/b&gt; news</title>").title, "Bold news");
});

Deno.test("rss: the channel's title and page", () => {
  const [rss] = parseXml(
    "<rss><channel><title>T &amp; U</title><link>/home</link></channel></rss>",
    BASE,
    undefined,
  );
  assert.deepEqual(channelTitleAndLink(rss.children[0], ""), {
    title: "T & U",
    link: "https://example.com/home",
  });
  assert.deepEqual(channelTitleAndLink(undefined, ""), { title: null, link: null });
});

Deno.test("rss: categories (and dc:subject) as plain text, in order; none: no list", () => {
  const entry = item(
    "<title>T</title><category>Rust</category><category domain='x'> Web\n Dev </category>" +
      "<category></category><dc:subject>Programming &amp; Tools</dc:subject>",
  );
  assert.deepEqual(entry.categories, ["Rust", "Web Dev", "Programming & Tools"]);
  assert.equal(item("<title>T</title>").categories, undefined);
});
