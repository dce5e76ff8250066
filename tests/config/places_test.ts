/**
 * Where a problem of a valid YAML document is placed: js-yaml gives plain values, and its
 * listener's nodes find a key path's line:col again, through the shapes YAML allows (flow
 * mappings, anchors and aliases, `<<` merge keys, empty values and list items, several
 * documents).
 */
import { problems } from "./problems.ts";
import { assertEquals } from "../support/assert.ts";

const TOP = 'messenger_auth_token: "123:abc_DEF"\n';
const FEED = '  - name: f\n    channel: "@c"\n    url: http://x/\n    cron: "* * * * *"\n';

Deno.test("places: a value in a flow mapping, at the value", () => {
  assertEquals(
    problems(
      TOP + 'feeds:\n  - {name: a, channel: "@c", url: "http://x/", cron: "* * * * *", ' +
        "type: rss, topic: x}\n",
    ),
    ['c.yml:3:85: feeds[0].topic: must be a forum topic\'s id (an integer), got a string ("x")'],
  );
});

Deno.test("places: a key merged from an anchor, where the anchor's mapping writes it", () => {
  assertEquals(
    problems(
      TOP + 'refs:\n  d: &d\n    type: rsx\nfeeds:\n  - <<: *d\n    name: a\n    channel: "@c"\n' +
        '    url: http://x/\n    cron: "* * * * *"\n',
    ),
    ['c.yml:4:11: feeds[0].type: must be "rss" or "atom", got "rsx"'],
  );
});

Deno.test("places: a feed given by an alias, inside the anchored feed", () => {
  assertEquals(
    problems(TOP + "feeds:\n  - &f\n    " + FEED.slice(4) + "    type: rss\n  - *f\n"),
    ['c.yml:4:11: feeds[1].name: duplicate feed name "f" (already used by feeds[0])'],
  );
});

Deno.test("places: an empty value after its colon, an empty list item at its dash", () => {
  assertEquals(
    problems(
      TOP +
        'feeds:\n  - name: a\n    channel:\n    url:\n      - 5\n      -\n    cron: "* * * * *"\n' +
        "    type: rss\n",
    ),
    [
      "c.yml:4:13: feeds[0].channel: must be a string, got nothing",
      'c.yml:6:9: feeds[0].url[0]: must be a string, got a number; quote it: "5"',
      "c.yml:7:7: feeds[0].url[1]: must be a string, got nothing",
    ],
  );
});

Deno.test("places: an unknown key at the key, a missing one at its mapping", () => {
  assertEquals(problems(TOP + "feeds:\n" + FEED.replace(/ {4}cron.*\n/, "") + "    tpye: rss\n"), [
    "c.yml:3:5: feeds[0].cron: missing required key",
    'c.yml:6:5: feeds[0].tpye: unknown key (did you mean "type"?)',
  ]);
});

Deno.test("places: YAML errors where the mistake is", () => {
  assertEquals(problems(TOP + "feeds:\n" + FEED + "    type: rss\n---\nx: 1\n"), [
    "c.yml:9:1: invalid YAML: a second document (one file holds one)",
  ]);
  assertEquals(problems(TOP + "proxy: *none\nfeeds: []\n"), [
    "c.yml:2:8: invalid YAML: unknown alias *none (no anchor &none before it)",
  ]);
  assertEquals(problems(TOP + "feeds:\n" + FEED.replace('"@c"', '"@c') + "    type: rss\n"), [
    'c.yml:4:14: invalid YAML: missing closing "quote',
  ]);
});
