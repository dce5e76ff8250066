/**
 * A page's URL given for a feed's: when the page names its feeds (`<link rel="alternate">`),
 * preview and the feed's failure line say which URL to use, made absolute. The real CLI, the
 * fixture server and the fake Bot API.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { withCliEnv } from "../support/cli_env.ts";
import { startFeedServer } from "../support/feed_server.ts";

Deno.test("an HTML page that names its feeds: preview and once say which URL to use", () =>
  withCliEnv(async (env) => {
    const server = startFeedServer();
    try {
      const page = `${server.base}/feeds/html-page-naming-feeds.html`;
      const use =
        "use https://blog.example/feed.xml or https://blog.example/atom.xml?a=1&b=2 as the url";
      const preview = await runCli(["preview", page]);
      assert.equal(preview.code, 1);
      assert.equal(
        preview.stderr,
        `courier preview: ${page}: not a feed: it is an HTML page that names feeds: ${use}\n`,
      );
      // An XHTML page, read as XML, and reached through a redirect.
      const moved = `${server.base}/redirect/1/xhtml-page-naming-feed.xml`;
      const xhtml = await runCli(["preview", moved]);
      assert.equal(xhtml.code, 1);
      assert.match(
        xhtml.stderr,
        new RegExp(
          "names its feed: use https://xhtml\\.example/feeds/all\\.atom as the url \\(at .*\\)\\n$",
        ),
      );
      // A page that names none says only what it is.
      const plain = await runCli(["preview", `${server.base}/feeds/html-page.html`]);
      assert.match(plain.stderr, /: not a feed: it is an HTML page\n$/);

      await env.writeConfig({
        feeds: [{ name: "blog", channel: "@blog_chan", url: page, cron: "* * * * *", type: "rss" }],
      });
      const once = await env.run("once");
      assert.equal(once.code, 1);
      assert.ok(
        once.stdout.includes(`${page}: not a feed: it is an HTML page that names feeds: ${use}`),
        once.stdout,
      );
    } finally {
      await server.close();
    }
  }));
