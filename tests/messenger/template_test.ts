import assert from "node:assert/strict";
import { messageEntry } from "../support/message_entry.ts";
import { formatMessage, MAX_MESSAGE_LENGTH } from "../../src/messenger/format.ts";
import { DEFAULT_TEMPLATE, parseTemplate, templateProblem } from "../../src/messenger/template.ts";
import { parseTelegramHtml } from "../support/fake_bot_api.ts";
import { legacyFormatMessage } from "./legacy_format.ts";

const entry = messageEntry;

const HOSTILE_TITLES = [
  "Hello",
  "",
  " ",
  `</b><script>alert("x")</script> & <a href="evil">&amp;`,
  "a < b && c > d",
  "😀👩‍👩‍👧 emoji " + "😀".repeat(2600),
  "t".repeat(5000),
  "a&".repeat(5000),
  "<".repeat(5000),
  "x".repeat(4090),
];
const LINKS = [
  null,
  "https://example.org/a",
  "javascript:alert(1)",
  'https://example.org/?q="><b>x</b>&y=1',
  "https://example.org/" + "p".repeat(5000),
];

Deno.test("template: the default template makes today's messages, byte for byte", () => {
  let compared = 0;
  for (const title of HOSTILE_TITLES) {
    for (const link of LINKS) {
      for (const summary of ["", "Short note", "s".repeat(500)]) {
        for (const linkText of ["Link", `<i>"more"</i> & co`, "L".repeat(3000)]) {
          for (const rhash of ["", "abc123"]) {
            const e = entry({ title, link, summary, categories: ["Tag"] });
            const today = legacyFormatMessage(e, { linkText, rhash });
            for (const template of [undefined, null, parseTemplate(DEFAULT_TEMPLATE)]) {
              const now = formatMessage(e, { linkText, rhash, template, feed: "f" });
              assert.equal(now.html, today.html);
              assert.equal(now.previews, today.previews);
              assert.equal(now.previewUrl, undefined, "the default adds no preview URL");
              compared++;
            }
          }
        }
      }
    }
  }
  assert.equal(compared, 10 * 5 * 3 * 3 * 2 * 3);
});

const RICH = parseTemplate(
  "<b>{title}</b> {categories}\n<i>{date}</i> · {feed}\n<blockquote>{summary:200}</blockquote>\n" +
    '<a href="{link}">{link_text}</a> <tg-spoiler>{{spoiler}}</tg-spoiler>',
);

Deno.test("template: hostile titles, summaries and categories make messages Telegram parses", () => {
  for (const title of HOSTILE_TITLES) {
    for (const link of LINKS) {
      const e = entry({
        title,
        link,
        summary: title.repeat(2) || "<script>&",
        categories: ["C++ & <Rust>", "😀 emoji", title.slice(0, 3000)],
        published: new Date("2024-05-01T12:34:56Z"),
      });
      const m = formatMessage(e, { linkText: "Read & <go>", rhash: "", template: RICH, feed: "f" });
      // A link too long to leave room (over 4096 alone) falls back to Telegram's measure.
      if ((link?.length ?? 0) < 1000) {
        assert.ok(m.html.length <= MAX_MESSAGE_LENGTH, `${m.html.length} characters`);
      }
      assert.ok(m.html.isWellFormed(), "never cut inside a surrogate pair");
      const parsed = parseTelegramHtml(m.html); // throws like Telegram on broken markup
      assert.ok(parsed.text.length <= MAX_MESSAGE_LENGTH);
      if (link?.startsWith("https:")) assert.equal(parsed.links[0].href, link);
    }
  }
});

Deno.test("template: fields, escaping, the summary's length, hashtags and the date", () => {
  const e = entry({
    title: "A <b> & C",
    summary: "word ".repeat(100).trim(),
    categories: ["Machine Learning", "C++", "machine learning", "++", "Ünïcode"],
    published: new Date("2024-05-01T12:34:56Z"),
  });
  const m = formatMessage(e, { linkText: "more", rhash: "", template: RICH, feed: "news" });
  const lines = m.html.split("\n");
  assert.equal(lines[0], "<b>A &lt;b&gt; &amp; C</b> #Machine_Learning #C #Ünïcode");
  assert.equal(lines[1], "<i>2024-05-01 12:34 UTC</i> · news");
  const summary = parseTelegramHtml(lines[2]).text;
  assert.equal(Array.from(summary).length, 200);
  assert.ok(summary.endsWith("…"));
  assert.equal(
    lines[3],
    '<a href="https://example.org/a">more</a> <tg-spoiler>{spoiler}</tg-spoiler>',
  );
});

Deno.test("template: lines whose entry fields are all missing are left out; a link without href keeps its text", () => {
  const template = parseTemplate(
    '<b>{title}</b> {categories}\n<i>{date}</i>\n{summary}\n<a href="{link}">{title}</a>\nfrom {feed}',
  );
  const bare = entry({ link: null, title: "T" });
  assert.equal(
    formatMessage(bare, { linkText: "L", rhash: "", template, feed: "f" }).html,
    "<b>T</b> \nT\nfrom f",
  );
  const full = entry({ title: "T", summary: "S", published: new Date(0), categories: ["x"] });
  assert.equal(
    formatMessage(full, { linkText: "L", rhash: "", template, feed: "f" }).html,
    '<b>T</b> #x\n<i>1970-01-01 00:00 UTC</i>\nS\n<a href="https://example.org/a">T</a>\nfrom f',
  );
});

Deno.test("template: with rhash the Instant View page is previewed wherever the link is", () => {
  const link = "https://example.org/post?id=1";
  const iv = "https://t.me/iv?url=https%3A%2F%2Fexample.org%2Fpost%3Fid%3D1&rhash=abc";
  const noLink = parseTemplate("<b>{title}</b>\n{summary}");
  const m = formatMessage(entry({ link, summary: "s" }), {
    linkText: "L",
    rhash: "abc",
    template: noLink,
  });
  assert.equal(m.previewUrl, iv);
  assert.equal(m.previews, true);
  const linked = parseTemplate('<a href="{link}">{title}</a>');
  const n = formatMessage(entry({ link }), { linkText: "L", rhash: "abc", template: linked });
  assert.equal(parseTelegramHtml(n.html).links[0].href, iv);
  assert.equal(n.previewUrl, iv);
});

Deno.test("template: markup Telegram refuses is a problem with its place", () => {
  const cases: [string, RegExp][] = [
    ["<div>{title}</div>", /<div> is not a tag Telegram accepts .* at character 1$/],
    ["<b>{title}", /<b> at character 1 is never closed/],
    ["<b>{title}</i>", /<\/i> where <\/b> \(opened at character 1\) must close first/],
    ["{title} & more", /a bare & .* at character 9/],
    ["{title} > more", /a > outside a tag/],
    ["{titel}", /unknown field \{titel\}/],
    ["{title:3}", /only \{summary:N\} takes a length/],
    ['<a href="{link}"><a href="{link}">x</a></a>', /a link inside a link/],
    ["<a>{title}</a>", /<a> needs href/],
    ['<span class="red">x</span>', /is not a value Telegram accepts/],
    ['<b onclick="x">y</b>', /<b> cannot have onclick/],
    ["", /must not be empty/],
  ];
  for (const [source, expected] of cases) {
    const problem = templateProblem(source);
    assert.ok(problem !== null && expected.test(problem), `${source}: ${problem}`);
  }
  for (
    const ok of [
      DEFAULT_TEMPLATE,
      '<span class="tg-spoiler">{summary}</span> &lt;{{x}}&gt; &#128512;',
      '<pre><code class="language-ts">{summary:50}</code></pre>',
      "<u><s><i><em><strong><ins><del><strike>{title}</strike></del></ins></strong></em></i></s></u>",
    ]
  ) assert.equal(templateProblem(ok), null, ok);
});
