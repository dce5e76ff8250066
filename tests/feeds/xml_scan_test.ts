import assert from "node:assert/strict";
import { Parser } from "htmlparser2";
import { scanXml } from "../../src/feeds/xml_scan.ts";
import { FIXTURES } from "../support/feed_server.ts";
import { joinedPieces, random } from "../support/generated.ts";

// scanXml promises htmlparser2's reading of malformed XML (the lenient behaviour every fixture's
// expected answer was made with); these tests hold it to that, event for event.

type Event = [string, ...unknown[]];

function viaScanner(text: string): Event[] {
  const events: Event[] = [];
  scanXml(text, {
    onopentag: (name, attrs) => events.push(["open", name, { ...attrs }]),
    onclosetag: (name, atEnd) => events.push(["close", name, atEnd]),
    ontext: (data) => events.push(["text", data]),
    oncdata: (data) => events.push(["cdata", data]),
    onleaf: (name, attrs, data) => {
      events.push(["open", name, { ...attrs }]);
      if (data !== "") events.push(["text", data]);
      events.push(["close", name, false]);
    },
  });
  return events;
}

function viaHtmlparser2(text: string): Event[] {
  const events: Event[] = [];
  let inCdata = false;
  let ending = false;
  const parser = new Parser({
    onopentag: (name, attrs) => events.push(["open", name, { ...attrs }]),
    onclosetag: (name) => events.push(["close", name, ending]),
    ontext: (data) => events.push(inCdata ? ["cdata", data] : ["text", data]),
    oncdatastart: () => (inCdata = true),
    oncdataend: () => (inCdata = false),
  }, { xmlMode: true, decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.write(text);
  ending = true;
  parser.end();
  return events;
}

function same(text: string): void {
  assert.deepEqual(viaScanner(text), viaHtmlparser2(text), `input: ${JSON.stringify(text)}`);
}

const PIECES = [
  "<",
  ">",
  "/",
  "/>",
  "</",
  "!",
  "?",
  "-",
  "--",
  "-->",
  "[",
  "]",
  "]]>",
  "<![CDATA[",
  "CDATA[",
  "<![CDA",
  "<!--",
  "<!-",
  "<!",
  "<?",
  "<?xml version='1.0'?>",
  "<!DOCTYPE rss>",
  "=",
  '"',
  "'",
  " ",
  "\n",
  "\t",
  "a",
  "b",
  "item",
  "Item",
  "x:y",
  "&amp;",
  "&",
  "text",
  "<item>",
  "</item>",
  "<ITEM>",
  "</Item >",
  "<a b='c'>",
  "<a b=c>",
  "<a b>",
  "<a b = \"c\" b='d'>",
  "</a>",
  "<br/>",
  "<br />",
  "<a/b>",
  "</a/>",
  "<<",
  "<>",
  "</>",
  "</ >",
  "<//x>",
  "< a",
  "<3",
  "é",
  "\u2028",
  "<a=b>",
  "</a=b>",
  "</<a/b>",
  "</a\t>",
  "<item/>",
];

Deno.test("scanXml reads every fixture exactly as htmlparser2 does", () => {
  for (const entry of Deno.readDirSync(FIXTURES)) {
    if (!entry.isFile) continue;
    same(new TextDecoder().decode(Deno.readFileSync(FIXTURES + entry.name)));
  }
});

Deno.test("scanXml reads every fixture cut off anywhere as htmlparser2 does", () => {
  const next = random(7);
  for (const entry of Deno.readDirSync(FIXTURES)) {
    if (!entry.isFile) continue;
    const text = new TextDecoder().decode(Deno.readFileSync(FIXTURES + entry.name));
    for (let i = 0; i < 40; i++) same(text.slice(0, Math.floor(next() * text.length)));
  }
});

Deno.test("scanXml reads the edge cases of malformed markup as htmlparser2 does", () => {
  for (
    const text of [
      "<",
      "a<",
      "a < b",
      "a <3 b",
      "<!",
      "<!-",
      "<!->x>y",
      "<!>x>y",
      "<![CDATA[",
      "<![CDA",
      "<![cdata[x]]>",
      "<![CDATA[]]>",
      "<![CDATA[a]]]>b",
      "<!-->x",
      "<!--->x",
      "<!---->x",
      "<!-- a -- b --->c",
      "<?",
      "<?x",
      "<?>",
      "<?x?>y",
      "</",
      "</ ",
      "</>",
      "a</>b",
      "</ >x",
      "<//x>y",
      "<//",
      "</a",
      "</a ",
      "</a x",
      "<a><b></a>c",
      "<a></b>c",
      "<a",
      "<a ",
      "<a b",
      "<a b=",
      "<a b='",
      "<a b=c",
      "<a /",
      "<a / ",
      "<a / x>",
      "<a/ >",
      "<a b=>",
      "<a b c>",
      "<a b==c>",
      "<a\nb\n=\n'c'\n>",
      "<a b=c/>",
      "<a b='c'/>",
      "<a b='1' B='2'>",
      "<a/b>",
      "<item><item>x</item>",
      "<a><b><c>t</x></b>",
      "x</a>",
      "<a>x</a/>",
      "<a>x</a y",
      "<a>x</a y>",
      "<<a>",
      "<>x",
      "<\u00e9t\u00e9>x</\u00c9T\u00c9>",
    ]
  ) same(text);
});

Deno.test("scanXml reads generated malformed markup as htmlparser2 does", () => {
  for (const text of joinedPieces(PIECES, 42, 40_000, 30)) same(text);
});
