/**
 * The valid-config reader (src/config/read_valid.ts, js-yaml) never decides differently from
 * the located one (read_located.ts, yaml's document): for every config it accepts, the
 * settings are the located reader's; everything it refuses is left to the located reader,
 * which alone reports problems.
 */
import { ConfigError } from "../../src/config/errors.ts";
import { readLocated } from "../../src/config/read_located.ts";
import { readValid } from "../../src/config/read_valid.ts";
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
function plain(settings: ReturnType<typeof readLocated>) {
  return JSON.parse(JSON.stringify({ ...settings, token: tokenOf(settings) }));
}

/**
 * Both readers on `text`: the valid one's settings or null, and the located one's or null where it
 * reports problems (a ConfigError; anything else is a failure of the test).
 */
function bothReaders(text: string) {
  const quick = readValid(text, "c.yml", CWD);
  let full: ReturnType<typeof readLocated> | null = null;
  try {
    // The environment may give the token, so neither reader requires it.
    full = readLocated(text, "c.yml", CWD, false);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  return { quick, full };
}

Deno.test("valid reader: agrees with the located reader on every corpus config and the example", async () => {
  const files = (await corpusCases()).map((c) => c.path);
  files.push(new URL("../../examples/config.yml", import.meta.url).pathname);
  let taken = 0;
  for (const path of files) {
    const text = await Deno.readTextFile(path);
    const { quick, full } = bothReaders(text);
    if (quick === null) continue;
    taken++;
    assert(full !== null, `${path}: accepted by the valid reader only`);
    assertEquals(plain(quick), plain(full), path);
  }
  assert(taken >= 15, `the valid reader took only ${taken} configs`);
});

const FEED = `  - name: a
    channel: "@abc"
    url: http://127.0.0.1/x
    cron: "*/5 * * * *"
    type: rss
`;

Deno.test("valid reader: leaves keys that are not plain strings, tags and directives to the located reader", () => {
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
      `${head}${FEED}    title: "double\n      folded"\n`,
      `${head}${FEED}    title: 'single\n      folded'\n`,
      `${head}${FEED}    title: a\rb\n`,
    ]
  ) {
    assertEquals(readValid(text, "c.yml", CWD), null, text);
  }
  // The same feed with a plain key is taken.
  assert(readValid(`${head}${FEED}    title: T\n`, "c.yml", CWD) !== null);
  assert(readValid(`${head}${FEED}    title: Wow!\n`, "c.yml", CWD) !== null);
  assert(readValid(`${head}${FEED.replace("/x", "/x?a=1&b[]=2")}`, "c.yml", CWD) !== null);
});

Deno.test("valid reader: refuses what the located reader reports", () => {
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
    assertEquals(readValid(text, "c.yml", CWD), null, text);
  }
});

Deno.test("valid reader: merge keys and anchors read as the located reader reads them", () => {
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
  const quick = readValid(text, "c.yml", CWD);
  assert(quick !== null);
  assertEquals(plain(quick), plain(readLocated(text, "c.yml", CWD)));
  assertEquals(quick.feeds.map((f) => f.linkText), ["Own", "Base"]);
});

Deno.test("valid reader: plain scalars are read as YAML 1.2's core schema reads them", () => {
  const head = 'messenger_auth_token: "1:a"\nfeeds:\n';
  const scalars = CORE_SCALARS;
  let taken = 0;
  for (const scalar of scalars) {
    for (const key of ["title", "first_time_limit"]) {
      const text = `${head}${FEED}    ${key}: ${scalar}\n`;
      const { quick, full } = bothReaders(text);
      if (quick === null) continue;
      taken++;
      assert(full !== null, `accepted by the valid reader only: ${text}`);
      assertEquals(plain(quick), plain(full), text);
    }
  }
  assert(taken >= 20, `${taken}`);
});

Deno.test("valid reader: quoted, block and multi-line strings are read as the located reader reads them", () => {
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
    "a # comment\n",
    "a#hash-inside\n",
    "café ☕\n",
  ];
  for (const title of titles) {
    const text = `${head}${FEED}    title: ${title}`;
    const quick = readValid(text, "c.yml", CWD);
    assert(quick !== null, text);
    assertEquals(plain(quick), plain(readLocated(text, "c.yml", CWD)), text);
  }
});

/** A small seeded generator, so a failing case can be found again. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("valid reader: 20,000 corpus configs with a few characters changed agree with the located reader or are declined", async () => {
  const seeds = await Promise.all((await corpusCases()).map((c) => Deno.readTextFile(c.path)));
  // What YAML treats specially, and what only looks like white space or a break to JavaScript.
  const pieces = [
    ...[" ", "  ", "\t", "\n", "\r\n", "\r", "#", ":", ": ", "-", "- ", "'", '"', "\\"],
    ...["[", "]", "{", "}", ",", "&", "*", "!", "|", ">", "%", "@", "`", "?", "é"],
    ...["\u0085", "\u00a0", "\u3000", "\u2028", "\ufeff", "\v", "\f"],
    ...["0", "1", ".", "e", "x", "true", "null", "~", "<<", "0x", ".inf", "0b1", "+0x1F"],
  ];
  const random = mulberry32(14);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  let taken = 0;
  for (let n = 0; n < 20_000; n++) {
    let text = pick(seeds);
    for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
      const at = Math.floor(random() * text.length);
      const how = random();
      if (how < 0.4) text = text.slice(0, at) + pick(pieces) + text.slice(at);
      else if (how < 0.7) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 3));
      else text = text.slice(0, at) + pick(pieces) + text.slice(at + 1);
    }
    const { quick, full } = bothReaders(text);
    if (quick === null) continue;
    taken++;
    assert(full !== null, `accepted by the valid reader only:\n${text}`);
    assertEquals(plain(quick), plain(full), text);
  }
  assert(taken >= 300, `${taken}`);
});
