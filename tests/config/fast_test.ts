/**
 * The fast reader (src/config/fast.ts) never decides differently from the full one: for every
 * config it accepts, the settings are those of the YAML document; everything it refuses is
 * left to the full reader, which alone reports problems.
 */
import { fastSettings } from "../../src/config/fast.ts";
import { ConfigError, documentSettings } from "../../src/config/load.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { CORE_SCALARS, corpusCases } from "./corpus.ts";
import { loadRegexEngine } from "../../src/filter/regex.ts";

// The example has filter expressions; loadSettings loads their engine, these readers do not.
await loadRegexEngine();

const CWD = "/srv/app";
const tokenOf = (s: { token: { reveal(): string } }) => s.token.reveal();

/**
 * The settings as plain data (the token revealed, compiled filter items by their source), for
 * comparing the two readers.
 */
function plain(settings: ReturnType<typeof documentSettings>) {
  return JSON.parse(JSON.stringify({ ...settings, token: tokenOf(settings) }));
}

/**
 * Both readers on `text`: the fast one's settings or null, and the full one's or null where it
 * reports problems (a ConfigError; anything else is a failure of the test).
 */
function bothReaders(text: string) {
  const quick = fastSettings(text, "c.yml", CWD);
  let full: ReturnType<typeof documentSettings> | null = null;
  try {
    // The environment may give the token, so neither reader requires it.
    full = documentSettings(text, "c.yml", CWD, false);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  return { quick, full };
}

Deno.test("fast reader: agrees with the full reader on every corpus config and the example", async () => {
  const files = (await corpusCases()).map((c) => c.path);
  files.push(new URL("../../examples/config.yml", import.meta.url).pathname);
  let fast = 0;
  for (const path of files) {
    const text = await Deno.readTextFile(path);
    const { quick, full } = bothReaders(text);
    if (quick === null) continue;
    fast++;
    assert(full !== null, `${path}: accepted by the fast reader only`);
    assertEquals(plain(quick), plain(full), path);
  }
  assert(fast >= 15, `the fast reader took only ${fast} configs`);
});

const FEED = `  - name: a
    channel: "@abc"
    url: http://127.0.0.1/x
    cron: "*/5 * * * *"
    type: rss
`;

Deno.test("fast reader: leaves keys that are not plain strings, tags and directives to the full reader", () => {
  const head = 'messenger_auth_token: "1:a"\nfeeds:\n';
  for (
    const text of [
      `${head}${FEED}    ? title\n    : T\n`,
      `${head}${FEED}    [title]: T\n`,
      `refs:\n  k: &k title\n${head}${FEED}    *k : T\n`,
      `${head}${FEED}    1: T\n`,
      `${head}${FEED}    first_time_limit: !!float 1\n`,
      `${head}${FEED}    title: !!str T\n`,
      `%YAML 1.1\n---\n${head}${FEED}    title: yes\n`,
    ]
  ) {
    assertEquals(fastSettings(text, "c.yml", CWD), null, text);
  }
  // The same feed with a plain key is taken.
  assert(fastSettings(`${head}${FEED}    title: T\n`, "c.yml", CWD) !== null);
  assert(fastSettings(`${head}${FEED}    title: Wow!\n`, "c.yml", CWD) !== null);
  assert(fastSettings(`${head}${FEED.replace("/x", "/x?a=1&b[]=2")}`, "c.yml", CWD) !== null);
});

Deno.test("fast reader: refuses what the full reader reports", () => {
  const head = 'messenger_auth_token: "1:a"\nfeeds:\n';
  for (
    const text of [
      "",
      `${head}`,
      `${head}${FEED}${FEED}`, // duplicate name
      `${head}${FEED}    colour: red\n`,
      `${head}${FEED}    constructor: x\n`,
      `${head}${FEED}    first_time_limit: "3"\n`,
      `${head}${FEED.replace("    type: rss\n", "")}`,
      `${head}${FEED.replace("url: http://127.0.0.1/x", "url: []")}`,
      `refs: 3\n${head}${FEED}`,
      `${head}${FEED}    <<: *nowhere\n`,
    ]
  ) {
    assertEquals(fastSettings(text, "c.yml", CWD), null, text);
  }
});

Deno.test("fast reader: merge keys and anchors read as the full reader reads them", () => {
  const text = `messenger_auth_token: "1:a"
refs:
  base: &base {channel: "@abc", cron: "0 * * * *", type: atom, title: Base}
feeds:
  - <<: *base
    name: a
    url: [http://127.0.0.1/x, http://127.0.0.1/y]
    title: Own
  - <<: [*base]
    name: b
    url: http://127.0.0.1/z
`;
  const quick = fastSettings(text, "c.yml", CWD);
  assert(quick !== null);
  assertEquals(plain(quick), plain(documentSettings(text, "c.yml", CWD)));
  assertEquals(quick.feeds.map((f) => f.linkText), ["Own", "Base"]);
});

Deno.test("fast reader: plain scalars are read as YAML 1.2's core schema reads them", () => {
  const head = 'messenger_auth_token: "1:a"\nfeeds:\n';
  const scalars = CORE_SCALARS;
  let taken = 0;
  for (const scalar of scalars) {
    for (const key of ["title", "first_time_limit"]) {
      const text = `${head}${FEED}    ${key}: ${scalar}\n`;
      const { quick, full } = bothReaders(text);
      if (quick === null) continue;
      taken++;
      assert(full !== null, `accepted by the fast reader only: ${text}`);
      assertEquals(plain(quick), plain(full), text);
    }
  }
  assert(taken >= 20, `${taken}`);
});

Deno.test("fast reader: quoted, block and multi-line strings are read as the full reader reads them", () => {
  const head = 'messenger_auth_token: "1:a"\nfeeds:\n';
  const titles = [
    "|\n      one\n      two\n",
    "|-\n      one\n\n      two\n\n",
    "|+\n      one\n\n",
    ">\n      one\n      two\n\n      three\n",
    ">-\n      folded\n        more indented\n      back\n",
    '"tab\\there \\u00e9 \\x41 \\"q\\" \\\\"\n',
    "'it''s'\n",
    "plain words\n      on two lines\n",
    '"double\n      folded"\n',
    "a # comment\n",
    "a#hash-inside\n",
    "café ☕\n",
  ];
  for (const title of titles) {
    const text = `${head}${FEED}    title: ${title}`;
    const quick = fastSettings(text, "c.yml", CWD);
    assert(quick !== null, text);
    assertEquals(plain(quick), plain(documentSettings(text, "c.yml", CWD)), text);
  }
});
