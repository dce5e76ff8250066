import assert from "node:assert/strict";
import type { Entry } from "../../src/model/entry.ts";
import { DEFAULT_FILTER_FIELDS, type EntryFilter, judge } from "../../src/filter/filter.ts";
import { compilePattern, type Pattern } from "../../src/filter/pattern.ts";
import { loadRegexEngine } from "../../src/filter/regex.ts";
import { bounded } from "../support/deadline.ts";

await loadRegexEngine();

function pattern(item: string): Pattern {
  const compiled = compilePattern(item);
  if (typeof compiled === "string") throw new Error(compiled);
  return compiled;
}

const matches = (item: string, text: string) => pattern(item).test(text);

function entry(partial: Partial<Entry>): Entry {
  return {
    id: "x",
    link: null,
    title: "",
    published: null,
    updated: null,
    summary: "",
    ...partial,
  };
}

function filter(
  include: string[],
  exclude: string[] = [],
  fields = DEFAULT_FILTER_FIELDS,
): EntryFilter {
  return { include: include.map(pattern), exclude: exclude.map(pattern), fields };
}

Deno.test("filter: a word matches whole words, in any case", () => {
  assert.ok(matches("rust", "Rust 1.80 is out"));
  assert.ok(matches("RUST", "news about rust."));
  assert.ok(!matches("rust", "Trusted builds"));
  assert.ok(!matches("rust", "rusty nails"));
  assert.ok(matches("rust", "rust_lang? no: rust, yes")); // the second one
  assert.ok(!matches("rust", "rust_lang only"));
  // Letters beyond ASCII are word characters too.
  assert.ok(matches("café", "Le CAFÉ du coin"));
  assert.ok(!matches("café", "cafés"));
  assert.ok(!matches("über", "Überall"));
});

Deno.test("filter: a phrase matches its words in order, spaces as written or not", () => {
  assert.ok(matches("web assembly", "All about Web Assembly today"));
  assert.ok(matches("web   assembly", "web assembly"));
  assert.ok(!matches("web assembly", "web assemblyscript"));
  assert.ok(!matches("web assembly", "assembly web"));
  // An item that ends in punctuation only needs a boundary where it has a word character.
  assert.ok(matches("c++", "I write C++."));
  assert.ok(!matches("c++", "ABC++"));
});

Deno.test("filter: an /expression/ with flags, on RE2", () => {
  assert.ok(matches("/\\bRFC ?\\d+/i", "see rfc 9110"));
  assert.ok(!matches("/\\bRFC ?\\d+/", "see rfc 9110"), "case matters without i");
  assert.ok(matches("/^ad:/im", "first\nAd: buy"));
  assert.ok(matches("/a.b/s", "a\nb"));
  assert.ok(!matches("/a.b/", "a\nb"));
  assert.ok(matches("/v\\d+\\.\\d+/u", "release v2.10"));
});

Deno.test("filter: what RE2 cannot run is refused with why", () => {
  const problem = (item: string) => compilePattern(item) as string;
  assert.match(problem("/(?=x)y/"), /lookaround .* linear time/);
  assert.match(problem("/(?<!x)y/"), /lookaround/);
  assert.match(problem("/(a)\\1/"), /back-reference/);
  assert.match(problem("/(?<n>a)\\k<n>/"), /back-reference/);
  assert.match(problem("/[a/"), /missing closing \]/);
  assert.match(problem("/a/g"), /unknown flag "g"/);
  assert.equal(problem("   "), "must not be empty");
  // An escaped parenthesis is a literal, not lookaround.
  assert.ok(matches("/\\(?=/", "x(?=y"));
});

Deno.test(
  "filter: a catastrophic-backtracking pattern on a long hostile title finishes at once",
  bounded(30_000, async (deadline) => {
    // In a worker: a hang there leaves this thread free to fail it by name.
    const worker = new Worker(new URL("./redos_worker.ts", import.meta.url).href, {
      type: "module",
    });
    try {
      const verdict = await deadline.within(
        "judging /(a+)+$/ against a title of 100,001 characters",
        new Promise((resolve, reject) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.onerror = (event) => reject(new Error(event.message));
        }),
      );
      // JavaScript's own engine would still be backtracking on this.
      assert.equal(verdict, "matches no include in title, summary");
    } finally {
      worker.terminate();
    }
  }),
);

Deno.test("filter: include needs one match, exclude none; categories each on their own", () => {
  const f = filter(["rust", "/^go$/i"], ["sponsored"]);
  assert.equal(judge(f, entry({ title: "Rust news" })), null);
  assert.equal(judge(f, entry({ title: "News", categories: ["Go"] })), null);
  // An expression anchored at both ends sees one category at a time, not them joined.
  assert.match(judge(f, entry({ title: "News", categories: ["Go lang"] }))!, /matches no include/);
  assert.equal(
    judge(f, entry({ title: "Sponsored: Rust" })),
    'excluded by "sponsored" in title',
  );
  assert.equal(
    judge(f, entry({ title: "Rust", categories: ["Sponsored"] })),
    'excluded by "sponsored" in categories',
  );
  // An expression is shown as written, not JSON-escaped (a log line escapes it once itself).
  assert.equal(
    judge(filter([], ["/\\bRFC ?\\d+/i"]), entry({ title: "see RFC 9110" })),
    'excluded by "/\\bRFC ?\\d+/i" in title',
  );
  // The summary is not looked at unless named.
  assert.match(judge(f, entry({ title: "x", summary: "rust" }))!, /matches no include/);
  const withSummary = filter(["rust"], [], ["summary"]);
  assert.equal(judge(withSummary, entry({ title: "x", summary: "all about rust" })), null);
  // Exclude only: everything else goes.
  assert.equal(judge(filter([], ["job"]), entry({ title: "anything" })), null);
});
