import { parseDocument } from "htmlparser2";
import { xmlHead, xmlRow } from "../../src/browse/sql/encode_xml.ts";
import { assert, assertEquals } from "../support/assert.ts";

Deno.test("values: XML rows escape markup and replace characters XML cannot carry", () => {
  const columns = ["a<b", "c"];
  const doc = xmlHead(columns) +
    xmlRow(columns, [`<x> & "y" 'z'`, "bell\x07 nul\x00 tab\t lone\uD800 ok\u{1F600}"]) +
    xmlRow(columns, [null, { $base64: true, encoded: "AP8=" }]) + "</result>\n";
  assert(![...doc].some((c) => c.charCodeAt(0) < 9), "no control characters left");
  const root = parseDocument(doc, { xmlMode: true });
  const values = root.children.find((n) => "name" in n && n.name === "result") as {
    children: unknown[];
  };
  assert(values !== undefined, "parses as XML with a <result> root");
  assert(
    doc.includes(`<value column="a&lt;b">&lt;x&gt; &amp; &quot;y&quot; &apos;z&apos;</value>`),
  );
  assert(doc.includes("bell\uFFFD nul\uFFFD tab\t lone\uFFFD ok\u{1F600}"));
  assertEquals(doc.match(/<row>/g)?.length, 2);
  assert(doc.includes(`<value column="c" encoding="base64">AP8=</value>`));
});
