import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";
import { postItems, rss, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";

async function setUp() {
  const dir = await Deno.makeTempDir();
  const items = [
    ...postItems(["a", "b"]),
    { id: "c", title: "Sponsored: buy", link: "https://example.org/c", minute: 5 },
    {
      id: "d",
      title: "Tagged <one> & more",
      link: "https://example.org/d",
      minute: 6,
      categories: ["Rust"],
      summary: "A summary",
    },
  ];
  await Deno.writeTextFile(`${dir}/feed.xml`, rss("Preview feed", items));
  const feed = { channel: "-1001234567890", url: "https://example.org/feed.xml", cron: "@hourly" };
  await Deno.writeTextFile(
    `${dir}/config.yml`,
    stringify({
      messenger_auth_token: TOKEN,
      data_dir: `${dir}/data`,
      filter: { exclude: ["sponsored"] },
      feeds: [
        {
          name: "news",
          ...feed,
          type: "rss",
          topic: 5,
          silent: true,
          template: '<b>{title}</b> {categories}\n{summary}\n<a href="{link}">{link_text}</a>',
        },
        { name: "other", ...feed, type: "atom", filter: { include: ["/^Post a$/"] } },
      ],
    }),
  );
  return { dir, items };
}

Deno.test("preview -c --feed: what the feed's filter keeps and drops, and each message; nothing sent or recorded", async () => {
  const { dir } = await setUp();
  try {
    const text = await runCli(["preview", "feed.xml", "-c", "config.yml", "--feed", "news"], {
      cwd: dir,
    });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Preview feed \(rss2, 4 entries\) as feed news: 3 kept, 1 dropped/);
    assert.match(
      text.stdout,
      /3\. Sponsored: buy\n(.*\n){3} {3}DROPPED: excluded by "sponsored" in title/,
    );
    assert.match(
      text.stdout,
      /KEPT; message \(topic 5, silent\):\n {5}<b>Tagged &lt;one&gt; &amp; more<\/b> #Rust\n {5}A summary\n {5}<a href="https:\/\/example.org\/d">Link<\/a>/,
    );
    assert.match(
      text.stdout,
      / {5}<b>Post a<\/b> \n {5}<a href="https:\/\/example.org\/a">Link<\/a>/,
    );
    assert.equal(text.stderr, "");

    const json = await runCli(
      ["preview", "feed.xml", "--json", "--feed", "other"],
      { cwd: dir, env: { COURIER_CONFIG: `${dir}/config.yml` } },
    );
    assert.equal(json.code, 0, json.stderr);
    // The feed's type is the hint: atom against an RSS document.
    assert.match(json.stderr, /^warning: the feed is RSS 2.0 but its type is set to atom$/m);
    const doc = JSON.parse(json.stdout);
    assert.equal(doc.feed, "other");
    assert.deepEqual(doc.entries.map((e: { kept: boolean }) => e.kept), [
      true,
      false,
      false,
      false,
    ]);
    assert.equal(doc.entries[1].dropped, "matches no include in title, categories");
    assert.deepEqual(doc.entries[0].message, {
      html: '<b>Post a</b>\n<a href="https://example.org/a">Link</a>',
      silent: false,
      topic: null,
      preview_url: null,
    });
    assert.equal(doc.entries[3].message, null);
    assert.deepEqual(doc.entries[3].categories, ["Rust"]);
    // Nothing recorded: no database was made.
    await assert.rejects(Deno.stat(`${dir}/data`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("preview --feed: an unknown feed, a bad config, -c without --feed are one line, exit 2", async () => {
  const { dir } = await setUp();
  try {
    const unknown = await runCli(["preview", "feed.xml", "-c", "config.yml", "--feed", "nope"], {
      cwd: dir,
    });
    assert.equal(unknown.code, 2);
    assert.equal(
      unknown.stderr.trim(),
      'courier preview: no feed "nope" in config.yml (its feeds: news, other)',
    );
    const alone = await runCli(["preview", "feed.xml", "-c", "config.yml"], { cwd: dir });
    assert.equal(alone.code, 2);
    assert.equal(alone.stderr.trim(), "courier preview: -c CONFIG goes with --feed NAME");
    await Deno.writeTextFile(
      `${dir}/bad.yml`,
      (await Deno.readTextFile(`${dir}/config.yml`)).replace("sponsored", "/(?=x)/"),
    );
    const bad = await runCli(["preview", "feed.xml", "-c", "bad.yml", "--feed", "news"], {
      cwd: dir,
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^bad\.yml:\d+:\d+: filter\.exclude\[0\]: invalid expression/);
    assert.equal(bad.stderr.trim().split("\n").length, 1);
    assert.ok(!bad.stderr.includes("TEST-token"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("preview --feed: a URL is fetched as that feed (its filter applied)", async () => {
  const { dir } = await setUp();
  const server = startFeedServer();
  try {
    server.set("/f.xml", [...postItems(["a"]), { id: "s", title: "Sponsored x", minute: 3 }]);
    const r = await runCli(
      ["preview", server.url("/f.xml"), "-c", "config.yml", "--feed", "news", "--json"],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc.entries.map((e: { kept: boolean }) => e.kept), [true, false]);
    assert.equal(doc.entries[0].message.topic, 5);
    assert.equal(doc.entries[0].message.silent, true);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("preview --feed never asks for the bot token: it sends nothing", async () => {
  const { dir } = await setUp();
  try {
    // The config without its token, and a token file nobody wrote.
    const text = (await Deno.readTextFile(`${dir}/config.yml`))
      .replace(/^messenger_auth_token: .*$/m, `messenger_auth_token_file: ${dir}/missing-token`);
    await Deno.writeTextFile(`${dir}/config.yml`, text);
    const preview = await runCli(["preview", "feed.xml", "-c", "config.yml", "--feed", "news"], {
      cwd: dir,
    });
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /as feed news: 3 kept, 1 dropped/);
    // Sending still needs it, and says which file is missing.
    const once = await runCli(["once", "-c", "config.yml"], { cwd: dir });
    assert.equal(once.code, 2);
    assert.match(once.stderr, /missing-token/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
