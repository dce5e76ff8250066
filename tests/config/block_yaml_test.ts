/**
 * The line reader (src/config/block_yaml.ts) reads what it accepts exactly as the yaml package
 * does, and declines the rest: every text here goes through both, and where the line reader
 * gives a value it must be yaml's (deep and strict: -0, NaN, key order aside from objects).
 */
import { parse } from "yaml";
import { readBlockYaml } from "../../src/config/block_yaml.ts";
import { blockSettings } from "../../src/config/read.ts";
import { ConfigError, documentSettings } from "../../src/config/load.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { CORE_SCALARS, corpusCases } from "./corpus.ts";

/** yaml's value, or undefined where it reports an error. */
function yamlValue(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

/** Checks `text` both ways; true when the line reader took it. */
function agrees(text: string): boolean {
  const ours = readBlockYaml(text);
  if (ours === undefined) return false;
  const theirs = yamlValue(text);
  assert(theirs !== undefined, `taken by the line reader, an error for yaml:\n${text}`);
  assertEquals(ours, theirs, text);
  return true;
}

const HEAD = 'messenger_auth_token: "1:a"\nfeeds:\n';
const FEED = `  - name: a
    channel: "@abc"
    url: http://127.0.0.1/x
    cron: "*/5 * * * *"
    type: rss
`;

Deno.test("line reader: agrees with yaml on every corpus config and the example", async () => {
  const files = (await corpusCases()).map((c) => c.path);
  files.push(new URL("../../examples/config.yml", import.meta.url).pathname);
  let taken = 0;
  for (const path of files) {
    if (agrees(await Deno.readTextFile(path))) taken++;
  }
  assert(taken >= 55, `the line reader took only ${taken} of ${files.length}`);
});

Deno.test("line reader: settings agree with the full reader's, problems are left to it", async () => {
  for (const { path } of await corpusCases()) {
    const text = await Deno.readTextFile(path);
    const quick = blockSettings(text, "c.yml", "/srv/app");
    if (quick === undefined || quick === null) continue;
    let full;
    try {
      // The environment may give the token, so neither reader requires it.
      full = documentSettings(text, "c.yml", "/srv/app", false);
    } catch (error) {
      if (error instanceof ConfigError) {
        throw new Error(`${path}: accepted by the line reader only`);
      }
      throw error;
    }
    assertEquals(
      { ...quick, token: quick.token.reveal() },
      { ...full, token: full.token.reveal() },
      path,
    );
  }
});

Deno.test("line reader: the shapes configs are written in are taken", () => {
  const texts = [
    `${HEAD}${FEED}`,
    // A sequence at its key's indentation, four-space indents, comments everywhere.
    `# top\nmessenger_auth_token: '1:a' # token\nfeeds: # the feeds\n- name: a # first\n  channel: "@abc"\n\n  # between\n  url: http://127.0.0.1/x#frag\n  cron: '0 * * * *'\n  type: atom\n`,
    `messenger_auth_token: "1:a"\nfeeds:\n    -   name: a\n        channel: "@abc"\n        url:\n            - http://127.0.0.1/x\n            - http://127.0.0.1/y\n        cron: "0 * * * *"\n        type: rss\n`,
    `${HEAD}${FEED}    url: [http://127.0.0.1/x, http://127.0.0.1/y?a=1&b=2]\n`.replace(
      "    url: http://127.0.0.1/x\n",
      "",
    ),
    `${HEAD}${FEED}`.replaceAll("\n", "\r\n"),
    `${HEAD}${FEED}    title: Wow! It's [new] {really}, 100% #1\n`,
    `${HEAD}${FEED}    title: "caf\\u00e9 \\"q\\" \\\\ \\t"\n`,
    `${HEAD}${FEED}    title: 'it''s'   # quoted\n`,
    `${HEAD}${FEED}    title:\n`,
    `${HEAD}${FEED}    proxy: ~\n    first_time_limit: 0x1F\n`,
    `${HEAD}${FEED}    url:\n      - "http://127.0.0.1/x"\n      - 'http://127.0.0.1/y' # second\n`
      .replace(
        "    url: http://127.0.0.1/x\n",
        "",
      ),
    `${HEAD}-\n  name: b\n  channel: "@abc"\n  url: http://127.0.0.1/x\n  cron: "0 * * * *"\n  type: rss\n`,
  ];
  for (const text of texts) assert(agrees(text), `declined:\n${text}`);
});

Deno.test("line reader: declines what only a YAML library reads right", () => {
  const texts = [
    `refs:\n  a: &a "0 * * * *"\n${HEAD}${FEED}    title: *a\n`,
    `${HEAD}${FEED}    <<: {title: T}\n`,
    `${HEAD}${FEED}    title: !!str 1\n`,
    `${HEAD}${FEED}    title: |\n      one\n      two\n`,
    `${HEAD}${FEED}    title: >-\n      one\n`,
    `${HEAD}${FEED}    title: plain words\n      on two lines\n`,
    `${HEAD}${FEED}    title: "double\n      folded"\n`,
    `${HEAD}${FEED}    ? title\n    : T\n`,
    `${HEAD}${FEED}    [title]: T\n`,
    `${HEAD}${FEED}    "title": T\n`,
    `${HEAD}  - "name": a\n`,
    `${HEAD}  - "a" : b\n`,
    `${HEAD}  - "a" b\n`,
    `${HEAD}${FEED}    1: T\n`,
    `${HEAD}${FEED}    true: T\n`,
    `${HEAD}${FEED}    null: T\n`,
    `${HEAD}${FEED}    my title: T\n`,
    `${HEAD}${FEED}    title:T\n`,
    `${HEAD}${FEED}    title: a: b\n`,
    `${HEAD}${FEED}    title: "\\x41"\n`,
    `${HEAD}${FEED}    title: {a: 1}\n`,
    `${HEAD}${FEED}    url: [http://127.0.0.1/x,\n      http://127.0.0.1/y]\n`,
    `${HEAD}${FEED}    url: ["http://127.0.0.1/x"]\n`,
    `${HEAD}${FEED}    title: T\n    title: U\n`,
    `${HEAD}${FEED}\ttitle: T\n`,
    `${HEAD}${FEED}    title:\tT\n`,
    `%YAML 1.1\n---\n${HEAD}${FEED}`,
    `---\n${HEAD}${FEED}`,
    `${HEAD}${FEED}...\n`,
    `${HEAD}  - - a\n`,
    `${HEAD}${FEED}    title: a\u0001b\n`,
    `${HEAD}${FEED}    title: a\rb\n`,
    `${HEAD}${FEED}    title: a\u2028b\n`,
    `${HEAD}${FEED}    __proto__: x\n`,
    `${HEAD}${FEED}   title: misaligned\n`,
    `${HEAD}${FEED}      title: too deep\n`,
  ];
  for (const text of texts) {
    assertEquals(readBlockYaml(text), undefined, text);
    // What it declines, a YAML library reads (or reports) all the same.
    yamlValue(text);
  }
});

Deno.test("line reader: plain scalars are read as YAML 1.2's core schema reads them", () => {
  const scalars = [
    ...CORE_SCALARS,
    "-",
    "-a",
    "?a",
    ":a",
    "a:b",
    "a#b",
    "a #b",
    "a  ",
    "@x",
    "`x`",
    "%x",
    "&x",
    "*x",
    "!x",
    "|x",
    ">x",
    "[]",
    "[1, true, ~, x, -2.5, .nan]",
    "[a b, c]",
    "[a, , b]",
    // White space to YAML is a space or a tab; a no-break space is content.
    "a\u00a0",
    "a\u00a0#b",
    "\u00a0a",
    "[a\u00a0, b]",
    "a\u3000",
    "[a,]",
    "{}",
    '"',
    "'",
    '""',
    "''",
    "a, b",
    "a,b",
    "[a]x",
    "http://h/a?b=[1]",
  ];
  let taken = 0;
  for (const scalar of scalars) {
    for (const text of [`key: ${scalar}\n`, `- ${scalar}\n`, `a:\n  - ${scalar}\n`]) {
      if (agrees(text)) taken++;
    }
  }
  assert(taken >= 140, `${taken}`);
});

Deno.test("line reader: structure variants agree with yaml or are declined", () => {
  // Every combination of a few ways to write each part of a small document.
  const keys = ["a", "a_b", "a-b", "A1", "_x"];
  const gaps = ["", "\n", "\n# c\n", "\n  # indented comment\n"];
  const values = ["1", "x y", '"q"', "'s'", "", " # only a comment", "[1, 2]"];
  const bodies = [
    (k: string, v: string) => `${k}:${v === "" ? "" : " "}${v}\n`,
    (k: string, v: string) => `${k}:\n  - ${v || "z"}\n  - ${v || "z"}\n`,
    (k: string, v: string) => `${k}:\n- ${v || "z"}\n`,
    (k: string, v: string) => `${k}:\n  inner: ${v}\n  other: 2\n`,
    (k: string, v: string) => `- ${k}: ${v}\n  next: 3\n`,
    (k: string, v: string) => `${k}:\n    - x: ${v}\n      y: 4\n    -   z: 5\n`,
  ];
  let taken = 0, all = 0;
  for (const key of keys) {
    for (const gap of gaps) {
      for (const value of values) {
        for (const body of bodies) {
          const text = `${gap}${body(key, value)}${gap}`;
          all++;
          if (agrees(text)) taken++;
          // Two of them in a row (a mapping after a mapping, a list after a list, or a mix).
          const twice = `${text}${body(key + "2", value)}`;
          if (agrees(twice)) taken++;
        }
      }
    }
  }
  assert(taken >= all, `${taken} of ${all * 2}`);
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

Deno.test("line reader: corpus configs with a few characters changed agree with yaml or are declined", async () => {
  const seeds = await Promise.all(
    (await corpusCases()).map((c) => Deno.readTextFile(c.path)),
  );
  // What YAML treats specially, and what only looks like white space or a break to JavaScript.
  const pieces = [
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "#",
    ":",
    ": ",
    "-",
    "- ",
    "'",
    '"',
    "\\",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&",
    "*",
    "!",
    "|",
    ">",
    "%",
    "@",
    "`",
    "?",
    "é",
    "\u0085",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\ufeff",
    "\v",
    "\f",
    "0",
    "1",
    ".",
    "e",
    "x",
    "true",
    "null",
    "~",
    "<<",
    "0x",
    ".inf",
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
    if (agrees(text)) taken++;
  }
  assert(taken >= 2_000, `${taken}`);
});
