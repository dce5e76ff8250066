/**
 * Items without guid that share a link (a podcast's episodes all linking to the show's page)
 * are distinct entries, and the one courier recorded before it told them apart keeps its id.
 */
import assert from "node:assert/strict";
import { orderEntries } from "../../src/feeds/merge.ts";
import { parseFeed } from "../../src/feeds/parse.ts";

const SHOW = "https://show.example/";

function item(n: number, enclosure = true, guid = false): string {
  return `<item><title>Episode ${n}</title><link>${SHOW}</link>` +
    `<pubDate>Mon, ${String(n).padStart(2, "0")} Jan 2024 10:00:00 GMT</pubDate>` +
    (enclosure ? `<enclosure url="https://cdn.show.example/${n}.mp3" type="audio/mpeg"/>` : "") +
    (guid ? `<guid isPermaLink="false">ep-${n}</guid>` : "") + "</item>";
}

/** The entries a document's items make, as they are sent: merged and ordered. */
function sent(items: string[]) {
  const xml = `<rss version="2.0"><channel><title>S</title>${items.join("")}</channel></rss>`;
  return orderEntries([parseFeed(xml, "https://show.example/feed.xml").entries]);
}

Deno.test("shared link: every episode is an entry, by its enclosure", () => {
  const entries = sent([item(3), item(2), item(1)]);
  assert.deepEqual(entries.map((e) => e.title), ["Episode 1", "Episode 2", "Episode 3"]);
  assert.deepEqual(entries.map((e) => e.id), [
    SHOW,
    "https://cdn.show.example/2.mp3",
    "https://cdn.show.example/3.mp3",
  ]);
});

Deno.test("shared link: the entry recorded before the upgrade keeps its id as episodes come", () => {
  // Before: every item's id was the link, and merging kept the last item in the document.
  const before = sent([item(2), item(1)]);
  const recorded = before.find((e) => e.id === SHOW)!;
  assert.equal(recorded.title, "Episode 1");
  const after = sent([item(4), item(3), item(2), item(1)]);
  const ids = new Map(after.map((e) => [e.title, e.id]));
  assert.equal(ids.get("Episode 1"), SHOW);
  // The ones since have ids that stay the same from run to run.
  assert.equal(ids.get("Episode 2"), before.find((e) => e.title === "Episode 2")!.id);
  assert.equal(new Set(ids.values()).size, 4);
});

Deno.test("shared link: without enclosures, title and date tell items apart; alike ones stay one", () => {
  const entries = sent([item(2, false), item(1, false), item(1, false)]);
  assert.deepEqual(entries.map((e) => e.title), ["Episode 1", "Episode 2"]);
  assert.equal(entries[0].id, SHOW);
  assert.ok(entries[1].id.startsWith(`${SHOW}#`), entries[1].id);
  // The same on every parse: the id is a hash of what the item says.
  assert.equal(sent([item(2, false), item(1, false)])[1].id, entries[1].id);
});

Deno.test("shared link: items with guids are left to their guids", () => {
  const entries = sent([item(2, true, true), item(1, true, true)]);
  assert.deepEqual(entries.map((e) => e.id), ["ep-1", "ep-2"]);
});

/** An item without guid: its link (absent: the enclosure stands in) and enclosure as given. */
function bare(n: number, link: string | null, enclosure: string): string {
  return `<item><title>Episode ${n}</title>${link === null ? "" : `<link>${link}</link>`}` +
    `<pubDate>Mon, ${String(n).padStart(2, "0")} Jan 2024 10:00:00 GMT</pubDate>` +
    `<enclosure url="${enclosure}"/></item>`;
}

const STREAM = "https://stream.show.example/live";

Deno.test("shared enclosure: items whose link is one enclosure stay apart; the last keeps its id", () => {
  // Before, each item's id was the enclosure and merging kept the last item in the document.
  const entries = sent([bare(3, null, STREAM), bare(2, null, STREAM), bare(1, null, STREAM)]);
  assert.deepEqual(entries.map((e) => e.title), ["Episode 1", "Episode 2", "Episode 3"]);
  assert.equal(entries[0].id, STREAM);
  assert.equal(new Set(entries.map((e) => e.id)).size, 3);
  for (const e of entries.slice(1)) assert.ok(e.id.startsWith(`${STREAM}#`), e.id);
  // The same ids on the next parse, and when a new episode comes on top.
  const later = sent([bare(4, null, STREAM), bare(3, null, STREAM), bare(2, null, STREAM)]);
  const ids = new Map(later.map((e) => [e.title, e.id]));
  assert.equal(ids.get("Episode 3"), entries[2].id);
  assert.equal(ids.get("Episode 2"), STREAM, "the last in the document keeps the old id");
  assert.equal(new Set(ids.values()).size, 3);
});

Deno.test("shared enclosure: three sharing the show's link and one enclosure are three", () => {
  const entries = sent([bare(3, SHOW, STREAM), bare(2, SHOW, STREAM), bare(1, SHOW, STREAM)]);
  assert.deepEqual(entries.map((e) => e.title), ["Episode 1", "Episode 2", "Episode 3"]);
  // What courier recorded before keeps its id: the last item the link, the next the enclosure.
  assert.equal(entries[0].id, SHOW);
  assert.equal(entries[1].id, STREAM);
  assert.ok(entries[2].id.startsWith(`${SHOW}#`), entries[2].id);
  // Alike items (same title, date, enclosure) are still one entry.
  assert.equal(
    sent([bare(2, SHOW, STREAM), bare(2, SHOW, STREAM), bare(1, SHOW, STREAM)]).length,
    2,
  );
  assert.equal(sent([bare(1, null, STREAM), bare(1, null, STREAM)]).length, 1);
});
