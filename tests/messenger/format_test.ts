import assert from "node:assert/strict";
import { messageEntry } from "../support/message_entry.ts";
import {
  escapeHtml,
  formatMessage,
  MAX_MESSAGE_LENGTH,
  messageLink,
  plainMessage,
} from "../../src/messenger/format.ts";
import { parseTelegramHtml } from "../support/fake_bot_api.ts";

const entry = messageEntry;

const plain = { linkText: "Link", rhash: "" };

Deno.test("title in bold, then a link with the feed's link text", () => {
  const m = formatMessage(entry({}), { linkText: "Read more", rhash: "" });
  assert.equal(m.html, '<b>Hello</b>\n<a href="https://example.org/a">Read more</a>');
  assert.equal(m.previews, true);
});

Deno.test("hostile titles, links and link texts are escaped and parse back exactly", () => {
  const title = `</b><script>alert("x")</script> & <a href="evil">&amp;`;
  const link = `https://example.org/?q="><b>x</b>&y=1`;
  const linkText = `<i>"more"</i> & co`;
  const m = formatMessage(entry({ title, link }), { linkText, rhash: "" });
  const parsed = parseTelegramHtml(m.html);
  assert.deepEqual(parsed.bold, [title]);
  assert.deepEqual(parsed.links, [{ href: link, text: linkText }]);
  assert.equal(parsed.text, `${title}\n${linkText}`);
});

Deno.test("escapeHtml covers &, <, > and double quotes", () => {
  assert.equal(escapeHtml(`a&b<c>d"e'f`), "a&amp;b&lt;c&gt;d&quot;e'f");
});

Deno.test("rhash turns the link into an Instant View link with previews on", () => {
  const link = "https://example.org/post?id=1&lang=en#top";
  const m = formatMessage(entry({ link }), { linkText: "Link", rhash: "abc123" });
  const href = parseTelegramHtml(m.html).links[0].href;
  assert.equal(
    href,
    "https://t.me/iv?url=https%3A%2F%2Fexample.org%2Fpost%3Fid%3D1%26lang%3Den%23top&rhash=abc123",
  );
  assert.equal(new URL(href).searchParams.get("url"), link);
  assert.equal(m.previews, true);
  assert.equal(messageLink(link, ""), link);
});

Deno.test("a long title is cut to fit 4096 characters, never inside an escape", () => {
  const m = formatMessage(entry({ title: "a&".repeat(5000) }), plain);
  assert.ok(m.html.length <= MAX_MESSAGE_LENGTH, String(m.html.length));
  assert.ok(m.html.length > MAX_MESSAGE_LENGTH - 10);
  const parsed = parseTelegramHtml(m.html); // throws on a broken entity
  assert.ok(parsed.bold[0].endsWith("…"));
  assert.ok(/^(a&)*a?&?…$/.test(parsed.bold[0]));
  assert.equal(parsed.links[0].href, "https://example.org/a");
});

Deno.test("a long title of astral characters is never cut inside a surrogate pair", () => {
  const m = formatMessage(entry({ title: "😀".repeat(3000) }), plain);
  assert.ok(m.html.length <= MAX_MESSAGE_LENGTH);
  assert.ok(m.html.isWellFormed());
  assert.ok(parseTelegramHtml(m.html).bold[0].endsWith("😀…"));
});

Deno.test("the plain fallback cuts a long title to fit, unescaped and never inside a surrogate pair", () => {
  const m = plainMessage(entry({ title: "&😀".repeat(3000) }));
  assert.equal(m.plain, true);
  assert.ok(m.html.length <= MAX_MESSAGE_LENGTH && m.html.length > MAX_MESSAGE_LENGTH - 4);
  assert.ok(m.html.isWellFormed());
  assert.ok(/^(&😀)+&?😀?…\nhttps:\/\/example\.org\/a$/u.test(m.html));
});

Deno.test("a huge link still yields a message within Telegram's parsed-text limit", () => {
  const link = "https://example.org/" + "p".repeat(5000);
  const m = formatMessage(entry({ title: "t".repeat(5000), link }), plain);
  const parsed = parseTelegramHtml(m.html);
  assert.ok(parsed.text.length <= MAX_MESSAGE_LENGTH);
  assert.equal(parsed.links[0].href, link);
});

Deno.test("no title: the summary stands in; no link: the title alone", () => {
  const m = formatMessage(entry({ title: " ", summary: "Short note", link: null }), plain);
  assert.equal(m.html, "<b>Short note</b>");
  const n = formatMessage(entry({ title: "", summary: "", link: "https://e.org/x" }), plain);
  assert.deepEqual(parseTelegramHtml(n.html).bold, ["https://e.org/x"]);
});

Deno.test("only http(s) links are linked", () => {
  const m = formatMessage(entry({ link: "javascript:alert(1)" }), plain);
  assert.equal(m.html, "<b>Hello</b>");
});
