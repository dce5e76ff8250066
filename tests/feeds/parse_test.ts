import assert from "node:assert/strict";
import { FeedError } from "../../src/feeds/errors.ts";
import { orderEntries } from "../../src/feeds/merge.ts";
import { parseFeed } from "../../src/feeds/parse.ts";
import { parseDate } from "../../src/feeds/dates.ts";
import { formatRfc3339 } from "../../src/time/rfc3339.ts";
import { decodeEntities } from "../../src/feeds/entities.ts";
import { contentId } from "../../src/feeds/identity.ts";
import type { Entry } from "../../src/model/entry.ts";

const BASE = "https://example.com/feed.xml";

Deno.test("a billion-laughs document is refused quickly and without expanding", () => {
  const levels = Array.from(
    { length: 30 },
    (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`,
  ).join("");
  const doc = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY l0 "lol">${levels}]>` +
    `<rss><channel><title>&l30;</title></channel></rss>`;
  // 10^30 characters if expanded: finishing at all proves nothing was expanded.
  assert.throws(() => parseFeed(doc, BASE), (e: unknown) => {
    assert.ok(e instanceof FeedError);
    assert.match(e.message, /^https:\/\/example\.com\/feed\.xml: refused: entity &l\d+; would/);
    return true;
  });
});

Deno.test("many references to a modest entity hit the total expansion budget", () => {
  const value = "y".repeat(50_000);
  const doc = `<!DOCTYPE r [<!ENTITY e "${value}">]><rss><channel><title>` +
    "&e;".repeat(100) + "</title></channel></rss>";
  assert.throws(() => parseFeed(doc, BASE), /entity expansion exceeds the limit/);
});

Deno.test("the expansion budget counts references in text that no entry reads", () => {
  const value = "y".repeat(50_000);
  const doc = `<!DOCTYPE r [<!ENTITY e "${value}">]><rss><channel><item><guid>g</guid>` +
    `<category>${"&e;".repeat(100)}</category></item></channel></rss>`;
  assert.throws(
    () => parseFeed(doc, BASE, null, { summaries: false }),
    /entity expansion exceeds the limit/,
  );
});

Deno.test("external entities are never resolved, even when the file exists", () => {
  const dir = Deno.makeTempDirSync();
  const secret = `${dir}/secret.txt`;
  Deno.writeTextFileSync(secret, "TOP-SECRET");
  const doc = `<!DOCTYPE r [<!ENTITY s SYSTEM "file://${secret}">]>` +
    `<rss><channel><item><title>[&s;]</title><link>https://e/1</link></item></channel></rss>`;
  const feed = parseFeed(doc, BASE);
  assert.equal(feed.entries[0].title, "[]");
  assert.ok(!JSON.stringify(feed).includes("TOP-SECRET"));
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("entity decoding: XML, HTML named, numeric, bare ampersand, cp1252 numerics", () => {
  assert.equal(decodeEntities("a &amp; b &lt;&gt; &quot;&apos;"), `a & b <> "'`);
  assert.equal(decodeEntities("&eacute;&nbsp;&hellip;"), "é\u00a0…");
  assert.equal(decodeEntities("&#233;&#xE9;&#x1F600;"), "éé😀");
  assert.equal(decodeEntities("AT&T & R&D"), "AT&T & R&D");
  assert.equal(decodeEntities("&#150;&#153;"), "–™");
  assert.equal(decodeEntities("?a=1&copy=2"), "?a=1&copy=2");
  // XML's five are read without slicing their names; near misses fall through to the rest.
  const nearMisses = ["&ltx;", "&LT;", "&amp", "&am;", "a&lt;b&gt", "&apos;&apos", "&&lt;;"];
  assert.deepEqual(nearMisses.map((t) => decodeEntities(t)), [
    "&ltx;",
    "<",
    "&amp",
    "&am;",
    "a<b&gt",
    "'&apos",
    "&<;",
  ]);
  assert.equal(decodeEntities("&ampx;&quotation;&#38;lt;"), "&ampx;&quotation;&lt;");
});

Deno.test("dates: RFC 822 and RFC 3339 with their broken variants", () => {
  const iso = (s: string) => parseDate(s)?.toISOString() ?? null;
  assert.equal(iso("Tue, 10 Jun 2003 04:00:00 GMT"), "2003-06-10T04:00:00.000Z");
  assert.equal(iso("Tue, 10 Jun 2003 04:00:00 -0700"), "2003-06-10T11:00:00.000Z");
  assert.equal(iso("10 Jun 2003 04:00 PST"), "2003-06-10T12:00:00.000Z");
  assert.equal(iso("Tue, 10 Jun 99 04:00:00 GMT"), "1999-06-10T04:00:00.000Z");
  assert.equal(iso("2003-06-10T04:00:00+01:00"), "2003-06-10T03:00:00.000Z");
  assert.equal(iso("2003-06-10 04:00:00"), "2003-06-10T04:00:00.000Z");
  assert.equal(iso("20030610T040000Z"), "2003-06-10T04:00:00.000Z");
  assert.equal(iso("June 10, 2003 4:00 pm"), "2003-06-10T16:00:00.000Z");
  assert.equal(iso("Mon Jun 10 2003 04:00:00 GMT+0200 (CEST)"), "2003-06-10T02:00:00.000Z");
  assert.equal(iso("not a date"), null);
  assert.equal(iso("2003-13-45T00:00:00Z"), null);
  assert.equal(iso(""), null);
});

Deno.test("dates: W3CDTF reduced precision is the first of the month, never a wrong day", () => {
  const iso = (s: string) => parseDate(s)?.toISOString() ?? null;
  // feedparser's reading: YYYY-MM and YYYY are the first of that month (of January).
  assert.equal(iso("2002-12"), "2002-12-01T00:00:00.000Z");
  assert.equal(iso("2010-05"), "2010-05-01T00:00:00.000Z");
  assert.equal(iso("2002"), "2002-01-01T00:00:00.000Z");
  assert.equal(iso("2002-1"), "2002-01-01T00:00:00.000Z");
  assert.equal(iso("2002-12Z"), "2002-12-01T00:00:00.000Z");
  assert.equal(iso("2002-12+01:00"), "2002-12-01T00:00:00.000Z");
  // Digits without separators must fill year, month and day; "200212" is no 2 January.
  assert.equal(iso("20021203"), "2002-12-03T00:00:00.000Z");
  assert.equal(iso("2002-12-3"), "2002-12-03T00:00:00.000Z");
  assert.equal(iso("200212"), null);
  assert.equal(iso("2002123"), null);
  // Out of range is no date (feedparser carries 2002-13 into 2003).
  assert.equal(iso("2002-13"), null);
  assert.equal(iso("2002-00"), null);
  assert.equal(iso("1799-12"), null);
  assert.equal(iso("12345"), null);
});

Deno.test("identity: guid, else link, else a stable hash of title and content", () => {
  const doc = `<rss><channel>
    <item><guid>g1</guid><link>https://e/1</link><title>A</title></item>
    <item><link>https://e/2</link><title>B</title></item>
    <item><title>C</title><description>body</description></item>
  </channel></rss>`;
  const [a, b, c] = parseFeed(doc, BASE).entries;
  assert.equal(a.id, "g1");
  assert.equal(b.id, "https://e/2");
  assert.equal(c.id, contentId("C", "body"));
  assert.equal(parseFeed(doc, BASE).entries[2].id, c.id, "stable across parses");
  assert.notEqual(contentId("C", "body"), contentId("C", "body2"));
});

Deno.test("without summaries, entries keep their ids and only a hashed entry reads its summary", () => {
  const doc = `<rss><channel>
    <item><guid>g1</guid><title>A</title><description>&lt;p&gt;one&lt;/p&gt;</description></item>
    <item><title>C</title><description>&lt;b&gt;body&lt;/b&gt;</description></item>
  </channel></rss>
  `;
  const full = parseFeed(doc, BASE).entries;
  const bare = parseFeed(doc, BASE, null, { summaries: false }).entries;
  assert.deepEqual(full.map((e) => e.summary), ["one", "body"]);
  assert.deepEqual(bare.map((e) => e.summary), ["", "body"]);
  assert.deepEqual(bare.map((e) => e.id), full.map((e) => e.id));
  assert.equal(bare[1].id, contentId("C", "body"));
  const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id><title>T</title>
    <summary type="html">&lt;i&gt;s&lt;/i&gt;</summary></entry></feed>`;
  assert.equal(parseFeed(atom, BASE).entries[0].summary, "s");
  assert.equal(parseFeed(atom, BASE, null, { summaries: false }).entries[0].summary, "");
});

function entry(id: string, link: string | null, date: string | null): Entry {
  const d = date ? new Date(date) : null;
  return { id, link, title: id, published: d, updated: null, summary: "" };
}

Deno.test("merge: several URLs deduplicated by id and by link, oldest first", () => {
  const first = [
    entry("b", "https://e/b", "2024-01-02T00:00:00Z"),
    entry("a", "https://e/a", "2024-01-01T00:00:00Z"),
  ];
  const second = [
    entry("c", "https://e/c", "2024-01-03T00:00:00Z"),
    entry("a", "https://mirror/a", "2024-01-01T00:00:00Z"), // same id
    entry("a2", "https://e/b", "2024-01-02T00:00:00Z"), // same link
  ];
  assert.deepEqual(orderEntries([first, second]).map((e) => e.id), ["a", "b", "c"]);
});

Deno.test("merge: within one document, different ids sharing a link stay distinct", () => {
  const show = "https://podcast.example/show";
  const list = [entry("ep3", show, null), entry("ep2", show, null), entry("ep1", show, null)];
  assert.deepEqual(orderEntries([list]).map((e) => e.id), ["ep1", "ep2", "ep3"]);
  // From a second URL of the same feed, a shared link is the same post under a mirror's id.
  const mirror = [entry("mirror-ep1", show, null)];
  assert.deepEqual(orderEntries([list, mirror]).map((e) => e.id), ["ep1", "ep2", "ep3"]);
});

Deno.test("merge: within one document, entries without ids merge by link", () => {
  const link = "https://e/x";
  const anonymous = [entry(link, link, null), entry("hash:0123456789abcdef", link, null)];
  assert.deepEqual(orderEntries([anonymous]).map((e) => e.id), ["hash:0123456789abcdef"]);
  // One with an id of its own and one without are not merged by their shared link.
  const mixed = [entry("guid-1", link, null), entry("hash:0123456789abcdef", link, null)];
  assert.equal(orderEntries([mixed]).length, 2);
  // Entries without own id merge by link whatever stands between them.
  const apart = [
    entry("hash:a", link, null),
    entry("guid-2", link, null),
    entry("hash:b", link, null),
  ];
  assert.deepEqual(orderEntries([apart]).map((e) => e.id), ["hash:b", "guid-2"]);
});

Deno.test("merge: dated entries in any order end as a stable sort by date would put them", () => {
  // Lists already in order skip the sort; shuffled ones, ties and undated gaps must not.
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let round = 0; round < 300; round++) {
    const list = Array.from({ length: random(12) }, (_, i) => {
      const day = random(4);
      const date = random(5) === 0 ? null : `2024-01-0${1 + (round % 3 === 0 ? i % 9 : day)}`;
      return entry(`e${i}`, null, date ? `${date}T00:00:00Z` : null);
    }).reverse();
    const merged = [...list].reverse();
    const slots = merged.flatMap((e, i) => e.published ? [i] : []);
    const dated = slots.map((i) => merged[i]);
    const sorted = dated.map((e, seq) => ({ e, seq }))
      .sort((a, b) => a.e.published!.getTime() - b.e.published!.getTime() || a.seq - b.seq);
    slots.forEach((slot, k) => merged[slot] = sorted[k].e);
    assert.deepEqual(orderEntries([list]).map((e) => e.id), merged.map((e) => e.id));
  }
});

Deno.test("merge: undated entries keep reverse document order around sorted dated ones", () => {
  const list = [
    entry("u1", null, null),
    entry("late", null, "2024-01-03T00:00:00Z"),
    entry("u2", null, null),
    entry("early", null, "2024-01-01T00:00:00Z"),
  ];
  assert.deepEqual(orderEntries([list]).map((e) => e.id), ["early", "u2", "late", "u1"]);
  assert.deepEqual(
    orderEntries([[entry("x", null, null), entry("y", null, null)]]).map((e) => e.id),
    [
      "y",
      "x",
    ],
  );
});

Deno.test("bytes: the HTTP charset is honoured; a string input is used as is", () => {
  const latin1 = new Uint8Array([
    ...new TextEncoder().encode("<rss><channel><title>caf"),
    0xe9,
    ...new TextEncoder().encode("</title></channel></rss>"),
  ]);
  assert.equal(parseFeed(latin1, BASE, "application/rss+xml; charset=ISO-8859-1").title, "café");
  assert.equal(parseFeed(latin1, BASE).title, "café", "invalid UTF-8 falls back to windows-1252");
  assert.equal(parseFeed("<rss><channel><title>ok</title></channel></rss>", BASE).title, "ok");
});

Deno.test("a DOCTYPE quoted in a comment before the root is not a doctype", () => {
  // feedparser's tests/wellformed/rss/item_description_not_a_doctype2.xml; feedparser reads the
  // description as "<!DOCTYPE".
  const bytes = Deno.readFileSync(
    new URL("../fixtures/feeds/item_description_not_a_doctype2.xml", import.meta.url),
  );
  const feed = parseFeed(bytes, BASE);
  assert.equal(feed.entries.length, 1);
  assert.equal(feed.entries[0].summary, "<!DOCTYPE");
  const real = '<!-- <!DOCTYPE x> --><!DOCTYPE rss [<!ENTITY who "World">]>' +
    "<rss><channel><item><title>Hello &who;</title></item></channel></rss>";
  assert.equal(parseFeed(real, BASE).entries[0].title, "Hello World");
});

Deno.test("atom: a license link is never the link; only a web-address id stands in for one", () => {
  const doc = '<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>' +
    '<entry><id>tag:x,2024:1</id><title>a</title><link rel="license" href="https://cc/by"/></entry>' +
    '<entry><id>https://e/2</id><title>b</title><link rel="license" href="https://cc/by"/></entry>' +
    "</feed>";
  const [a, b] = parseFeed(doc, BASE).entries;
  assert.equal(a.link, null);
  assert.equal(b.link, "https://e/2");
});

Deno.test("dates: the common RSS and Atom forms, with milliseconds and an offset", () => {
  assert.equal(
    parseDate("Wed, 31 Jan 2024 10:00:00 GMT")?.toISOString(),
    "2024-01-31T10:00:00.000Z",
  );
  assert.equal(
    parseDate("2024-01-31T10:00:00.250+01:00")?.toISOString(),
    "2024-01-31T09:00:00.250Z",
  );
});

Deno.test("dates: RFC 3339 output is toISOString's, without .000", () => {
  assert.equal(formatRfc3339(new Date("2024-02-29T23:59:59.999Z")), "2024-02-29T23:59:59.999Z");
  assert.equal(formatRfc3339(new Date("2000-03-01T00:00:00Z")), "2000-03-01T00:00:00Z");
  assert.equal(formatRfc3339(new Date(Date.UTC(-300, 0, 1))), "-000300-01-01T00:00:00Z");
  assert.equal(formatRfc3339(new Date("2024-01-31T10:00:00.050Z")), "2024-01-31T10:00:00.050Z");
});
