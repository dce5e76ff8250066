import assert from "node:assert/strict";
import { FeedError } from "../../src/feeds/errors.ts";
import { parseFeed } from "../../src/feeds/parse.ts";
import { asExpected, expectedFor, fixtureNames, FIXTURES } from "../support/feed_server.ts";

const names = fixtureNames();

Deno.test("the corpus has at least 60 feeds, each with an expected outcome", () => {
  const feeds = names.filter((n) => !("error" in expectedFor(n)));
  assert.ok(feeds.length >= 60, `only ${feeds.length} feeds`);
  for (const format of ["rss2", "rss1", "rss09x", "atom10", "atom03"]) {
    assert.ok(
      feeds.some((n) => (expectedFor(n) as { format: string }).format === format),
      `no ${format} fixture`,
    );
  }
});

for (const name of names) {
  Deno.test(`corpus: ${name}`, () => {
    const expected = expectedFor(name);
    const bytes = Deno.readFileSync(FIXTURES + name);
    const url = `https://fixtures.test/feeds/${name}`;
    if ("error" in expected) {
      assert.throws(() => parseFeed(bytes, url), (error: unknown) => {
        assert.ok(error instanceof FeedError);
        assert.equal(error.reason, expected.error);
        assert.ok(error.message.startsWith(url), "the error names the URL");
        return true;
      });
      return;
    }
    const feed = parseFeed(bytes, url);
    assert.deepEqual({ ...asExpected(feed), warnings: feed.warnings }, expected);
  });
}
