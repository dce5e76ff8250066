import { feedLinks, htmlPageReason } from "../../src/feeds/discover.ts";
import assert from "node:assert/strict";
import { detectFormat } from "../../src/feeds/format.ts";
import { FeedError } from "../../src/feeds/errors.ts";
import { parseXml } from "../../src/feeds/xml.ts";

const URL = "https://example.com/feed";

function detect(xml: string) {
  const { format, kind, ns } = detectFormat(parseXml(xml, URL, undefined), URL);
  return { format, kind, ns };
}

Deno.test("format: RSS versions by root and version attribute", () => {
  assert.deepEqual(detect('<rss version="2.0"><channel/></rss>'), {
    format: "rss2",
    kind: "rss",
    ns: "",
  });
  assert.equal(detect('<rss version="0.91"><channel/></rss>').format, "rss09x");
  assert.equal(detect("<rss><channel/></rss>").format, "rss2");
  const rdf = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" ' +
    'xmlns="http://purl.org/rss/1.0/"><channel/></rdf:RDF>';
  assert.deepEqual(detect(rdf), { format: "rss1", kind: "rss", ns: "rss1:" });
});

Deno.test("format: Atom 1.0, 0.3, without namespace, and an entry document", () => {
  assert.deepEqual(detect('<feed xmlns="http://www.w3.org/2005/Atom"/>'), {
    format: "atom10",
    kind: "atom",
    ns: "atom:",
  });
  assert.equal(detect('<feed xmlns="http://purl.org/atom/ns#" version="0.3"/>').format, "atom03");
  assert.deepEqual(detect("<feed/>"), { format: "atom10", kind: "atom", ns: "" });
  assert.deepEqual(detect('<entry xmlns="http://www.w3.org/2005/Atom"/>'), {
    format: "atom10",
    kind: "atom-entry",
    ns: "atom:",
  });
});

Deno.test("format: a document that is no feed is refused with its reason and URL", () => {
  for (
    const [xml, reason] of [
      ["<html><body/></html>", "not a feed: it is an HTML page"],
      ["<entry/>", "not a feed: the root element is <entry>"],
      ["<opml/>", "not a feed: the root element is <opml>"],
    ]
  ) {
    assert.throws(() => detect(xml), (error: unknown) => {
      assert.ok(error instanceof FeedError);
      assert.equal(error.reason, reason);
      assert.ok(error.message.startsWith(URL));
      return true;
    });
  }
});

Deno.test("an HTML page's feed links: alternate RSS or Atom, absolute against the page, once", () => {
  const page = `<html><head>
    <link rel="alternate" type="application/rss+xml" href="/feed.xml">
    <link rel="alternate feed" type="Application/Atom+XML" href="../atom.xml">
    <link rel="alternate" type="application/rss+xml" href="https://blog.example/feed.xml">
    <link rel="stylesheet" type="application/rss+xml" href="/not-alternate.xml">
    <link rel="alternate" type="text/html" href="/de/">
    <link rel="alternate" type="application/rss+xml" href="javascript:void(0)">
    <link rel="alternate" type="application/rss+xml">
  </head></html>`;
  assert.deepEqual(feedLinks(page, "https://blog.example/posts/page.html"), [
    "https://blog.example/feed.xml",
    "https://blog.example/atom.xml",
  ]);
  assert.equal(
    htmlPageReason(page, "https://blog.example/posts/"),
    "not a feed: it is an HTML page that names feeds: use https://blog.example/feed.xml or " +
      "https://blog.example/atom.xml as the url",
  );
  const many = Array.from(
    { length: 5 },
    (_, i) => `<link rel="alternate" type="application/rss+xml" href="/c${i}.xml">`,
  ).join("");
  assert.match(htmlPageReason(many, "https://x.example/"), /c2\.xml \(and 2 more\) as the url$/);
  assert.equal(
    htmlPageReason("<html></html>", "https://x.example/"),
    "not a feed: it is an HTML page",
  );
});
