import assert from "node:assert/strict";
import { htmlToText, looksLikeHtml, maybeHtmlToText } from "../../src/feeds/text.ts";

Deno.test("text: plain titles that mention tags are not HTML", () => {
  for (
    const title of [
      "</example>",
      "Use <br> for breaks",
      "Why <details> and </details> matter",
      "vector<int> &amp; map<K,V>",
      "a < b and c > d",
      "<b>unclosed & bold",
      "<i>crossed <b>tags</i></b>",
      "&madeup; <b>x</b>",
    ]
  ) {
    assert.equal(looksLikeHtml(title), false, title);
    assert.equal(maybeHtmlToText(title), title);
  }
});

Deno.test("text: escaped phrasing markup is HTML and becomes its text", () => {
  assert.equal(maybeHtmlToText("<b>Bold</b> &amp; <i>italic</i> news"), "Bold & italic news");
  assert.equal(maybeHtmlToText("Caf&eacute; <em>opens</em><!-- hidden -->"), "Café opens");
  assert.equal(
    maybeHtmlToText("Line<br/>break &mdash; <a href='/x'>here</a>"),
    "Line break — here",
  );
});

Deno.test("text: declarations, comments, scripts and styles never reach the text", () => {
  const html = '<!DOCTYPE html><!-- a <b>comment</b> --><p>One</p><script>var x = "<p>";</script>' +
    "<style>p { color: red }</style><div>Two<br>Three</div><![CDATA[Four]]>";
  assert.equal(htmlToText(html), "One Two Three Four");
  assert.equal(htmlToText("&lt;not a tag&gt; &amp; plain"), "<not a tag> & plain");
  assert.equal(htmlToText("<p>5 < 6</p>"), "5 < 6");
});

Deno.test("entities: HTML5's whole table, strict about the semicolon and the name", async () => {
  const { decodeEntities, isHtmlEntity } = await import("../../src/feeds/entities.ts");
  assert.equal(decodeEntities("&check; &bigstar; &hellip; &apos;"), "✓ ★ … '");
  assert.equal(decodeEntities("&notit; &madeup; ?a=1&copy=2"), "&notit; &madeup; ?a=1&copy=2");
  assert.equal(decodeEntities("&#147;x&#148; &#x81;"), "“x” \ufffd");
  assert.equal(isHtmlEntity("NotNestedGreaterGreater"), true);
  assert.equal(isHtmlEntity("madeup"), false);
});
