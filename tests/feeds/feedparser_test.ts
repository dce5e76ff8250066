/**
 * Feeds courier once misread, held to feedparser's reading of them: the entries in document
 * order, each with its link, title and date, as recorded by
 * tests/fixtures/feeds/feedparser/record.py (Debian's python3-feedparser). Where courier reads
 * a fixture differently on purpose, DIFFERENCES says why and what courier reads instead.
 */
import assert from "node:assert/strict";
import { formatRfc3339 } from "../../src/time/rfc3339.ts";
import { parseFeed } from "../../src/feeds/parse.ts";
import { FIXTURES } from "../support/feed_server.ts";

interface Seen {
  link: string | null;
  title: string;
  published: string | null;
}

interface Difference {
  why: string;
  /** Courier's entries, where they are not feedparser's. */
  courier: Seen[];
}

const DIFFERENCES: Record<string, Difference> = {
  "channel-closed-image-holding-item.xml": {
    why: "an <item> inside an element that is properly closed is that element's content, not " +
      "the channel's; feedparser takes an <item> wherever it stands",
    courier: [
      { link: "https://open.example/1", title: "Only", published: "2024-01-01T10:00:00Z" },
    ],
  },
  "dates-day-first-dots.xml": {
    why: "feedparser reads no date from day-first dotted dates (courier reads them day first, " +
      "as wherever dots are written); and feedparser reads the year 0099 as 99 AD, a date no " +
      "feed means and courier refuses (years before 1800), rather than read it as 1999",
    courier: [
      {
        link: "https://dots.example/1",
        title: "Day first with dots",
        published: "2003-06-10T04:00:00Z",
      },
      {
        link: "https://dots.example/2",
        title: "Day first with dots, seconds",
        published: "2023-12-25T18:30:15Z",
      },
      {
        link: "https://dots.example/3",
        title: "Day first, no time",
        published: "2024-02-01T00:00:00Z",
      },
      {
        link: "https://dots.example/4",
        title: "Day over twelve",
        published: "2024-01-13T08:00:00Z",
      },
      { link: "https://dots.example/5", title: "Not a day", published: null },
      { link: "https://dots.example/6", title: "Year 0099", published: null },
      { link: "https://dots.example/7", title: "Year 0099 W3C", published: null },
      {
        link: "https://dots.example/8",
        title: "Two-digit year",
        published: "1999-01-01T00:00:00Z",
      },
    ],
  },
};

const RECORDED = `${FIXTURES}feedparser/`;
const names = [...Deno.readDirSync(RECORDED)]
  .map((e) => e.name)
  .filter((n) => n.endsWith(".json"))
  .map((n) => n.slice(0, -".json".length))
  .sort();

Deno.test("feedparser: every recorded fixture exists, and there are recordings", () => {
  assert.ok(names.length >= 8, `${names.length}`);
  for (const name of [...names, ...Object.keys(DIFFERENCES)]) {
    assert.ok(Deno.statSync(FIXTURES + name).isFile, name);
  }
});

for (const name of names) {
  Deno.test(`feedparser: ${name}`, () => {
    const recorded = JSON.parse(Deno.readTextFileSync(`${RECORDED}${name}.json`));
    const feed = parseFeed(
      Deno.readFileSync(FIXTURES + name),
      `https://fixtures.test/feeds/${name}`,
    );
    // Document order: the parser's own, before merging reorders by date.
    const seen: Seen[] = feed.entries.map((e) => ({
      link: e.link,
      title: e.title,
      published: e.published ? formatRfc3339(e.published) : null,
    }));
    const theirs: Seen[] = recorded.entries.map((e: Seen) => ({
      link: e.link,
      title: e.title,
      published: e.published,
    }));
    const difference = DIFFERENCES[name];
    if (difference) {
      assert.notDeepEqual(
        seen,
        theirs,
        `${name} now reads as feedparser does: drop its difference`,
      );
      assert.deepEqual(seen, difference.courier);
    } else assert.deepEqual(seen, theirs);
    assert.equal(feed.title, recorded.title);
    // feedparser flags the documents it had to recover ("bozo"); courier warns about them.
    if (recorded.bozo) assert.ok(feed.warnings.length > 0, "no warning");
  });
}
