import assert from "node:assert/strict";
import { FeedError } from "../../src/feeds/errors.ts";
import { USER_AGENT } from "../../src/feeds/fetch.ts";
import { readFeed } from "../../src/feeds/read.ts";
import { VERSION } from "../../src/version.ts";
import { startFeedServer } from "../support/feed_server.ts";

async function rejects(promise: Promise<unknown>, pattern: RegExp): Promise<FeedError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof FeedError, `expected FeedError, got ${error}`);
    assert.match(error.message, pattern);
    assert.ok(!error.message.includes("\n"), "one line");
    return error;
  }
  assert.fail("expected a FeedError");
}

Deno.test("readFeed: fetches, parses, sends the courier User-Agent and stores validators", async () => {
  const server = startFeedServer();
  try {
    const url = `${server.base}/feeds/rss20.xml`;
    const read = await readFeed({ urls: [url], type: "rss" });
    assert.equal(read.format, "rss2");
    assert.equal(read.title, "Liftoff News");
    assert.deepEqual(read.entries.map((e) => e.title), [
      "The Engine That Does More",
      "Sky watchers in Europe, Asia, and parts of Alaska and Canada will experience a partial eclipse of the Sun",
      "Star City",
    ]);
    const { bodyHash, ...httpValidators } = read.validators.get(url)!;
    assert.deepEqual(httpValidators, {
      etag: '"rss20.xml-v1"',
      lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
    });
    assert.match(bodyHash ?? "", /^xxh64:[0-9a-f]{16}$/);
    assert.deepEqual(read.notModified, []);
    assert.equal(USER_AGENT, `courier/${VERSION}`);
    assert.equal(server.requests[0].headers.get("user-agent"), USER_AGENT);
    assert.match(server.requests[0].headers.get("accept-encoding") ?? "", /deflate/);
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: conditional GET sends the validators and reports 304", async () => {
  const server = startFeedServer();
  try {
    const url = `${server.base}/feeds/atom10.xml`;
    const first = await readFeed({ urls: [url], type: "atom" });
    const second = await readFeed({ urls: [url], type: "atom", validators: first.validators });
    assert.deepEqual(second.notModified, [url]);
    assert.deepEqual(second.entries, []);
    assert.deepEqual(second.validators.get(url), first.validators.get(url));
    assert.equal(server.requests[1].headers.get("if-none-match"), '"atom10.xml-v1"');
    assert.equal(
      server.requests[1].headers.get("if-modified-since"),
      "Mon, 01 Jan 2024 00:00:00 GMT",
    );
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: several URLs merged and deduplicated, type mismatch warned", async () => {
  const server = startFeedServer();
  try {
    const a = `${server.base}/feeds/duplicates.xml`;
    const b = `${server.base}/redirect/1/duplicates.xml`;
    const c = `${server.base}/feeds/youtube.xml`;
    const read = await readFeed({ urls: [a, b, c], type: "rss" });
    assert.deepEqual(read.entries.map((e) => e.id), [
      "guid-a",
      "guid-b",
      "guid-b2",
      "yt:video:zyxwvutsrqp",
      "yt:video:abcdefghijk",
    ]);
    assert.ok(
      read.warnings.some((w) => w.startsWith(c) && w.includes("Atom 1.0")),
      read.warnings.join(),
    );
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: redirects are followed and the final URL is the base for links", async () => {
  const server = startFeedServer();
  try {
    const read = await readFeed({
      urls: [`${server.base}/redirect/5/relative-links.xml`],
      type: "rss",
    });
    assert.ok(read.entries.some((e) => e.link === `${server.base}/feeds/posts/2`));
    await rejects(
      readFeed({ urls: [`${server.base}/redirect/6/rss20.xml`], type: "rss" }),
      /redirect\/6\/rss20\.xml: more than 5 redirects$/,
    );
    await rejects(readFeed({ urls: [`${server.base}/redirect-loop`], type: "rss" }), /more than 5/);
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: gzip, zlib deflate and raw deflate bodies", async () => {
  const server = startFeedServer();
  try {
    for (const enc of ["gzip", "deflate", "deflate-raw"]) {
      const read = await readFeed({ urls: [`${server.base}/${enc}/wordpress.xml`], type: "rss" });
      assert.equal(read.title, "My WordPress Blog – Just another site", enc);
      assert.equal(read.entries.length, 2, enc);
    }
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: HTTP errors, HTML pages, empty bodies and non-feeds name the URL", async () => {
  const server = startFeedServer();
  try {
    await rejects(
      readFeed({ urls: [`${server.base}/status/404`], type: "rss" }),
      new RegExp(`^${server.base}/status/404: HTTP 404 Not Found$`),
    );
    await rejects(readFeed({ urls: [`${server.base}/status/503`], type: "rss" }), /HTTP 503/);
    await rejects(
      readFeed({ urls: [`${server.base}/feeds/html-page.html`], type: "rss" }),
      /html-page\.html: not a feed: it is an HTML page$/,
    );
    await rejects(
      readFeed({ urls: [`${server.base}/redirect/1/html-page.html`], type: "rss" }),
      /redirect\/1\/html-page\.html: not a feed: it is an HTML page \(at .*\/feeds\/html-page\.html\)$/,
    );
    await rejects(readFeed({ urls: [`${server.base}/empty`], type: "rss" }), /empty response body/);
    await rejects(
      readFeed({ urls: [`${server.base}/feeds/sitemap.xml`], type: "rss" }),
      /root element is <urlset>/,
    );
    // One failing URL fails the whole feed.
    await rejects(
      readFeed({
        urls: [`${server.base}/feeds/rss20.xml`, `${server.base}/status/500`],
        type: "rss",
      }),
      /status\/500: HTTP 500/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: the size cap applies while streaming and after decompression", async () => {
  const server = startFeedServer();
  try {
    await rejects(
      readFeed({ urls: [`${server.base}/big/3000000`], type: "rss", maxBytes: 1_000_000 }),
      /big\/3000000: response body larger than the cap of 1000000 bytes$/,
    );
    // About 800 bytes compressed, 1870 decompressed: only the decompressed size is over the cap.
    await rejects(
      readFeed({ urls: [`${server.base}/gzip/wordpress.xml`], type: "rss", maxBytes: 1200 }),
      /larger than the cap of 1200 bytes/,
    );
    await rejects(
      readFeed({ urls: [`${server.base}/deflate/wordpress.xml`], type: "rss", maxBytes: 1200 }),
      /larger than the cap of 1200 bytes/,
    );
    const ok = await readFeed({ urls: [`${server.base}/big/200000`], type: "rss" });
    assert.equal(ok.title, "Big");
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: the timeout covers a server that never answers and a body that never ends", async () => {
  const server = startFeedServer();
  try {
    await rejects(
      readFeed({ urls: [`${server.base}/hang`], type: "rss", timeoutMs: 200 }),
      /hang: timed out after 200 ms$/,
    );
    await rejects(
      readFeed({ urls: [`${server.base}/slow`], type: "rss", timeoutMs: 200 }),
      /slow: timed out after 200 ms$/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: requests in flight keep their own timeouts, however they overlap", async () => {
  const server = startFeedServer();
  try {
    // A long timeout armed first, then a shorter one, then a fast request that succeeds:
    // each fails (or not) on its own deadline.
    const long = readFeed({ urls: [`${server.base}/hang`], type: "rss", timeoutMs: 600 });
    const short = readFeed({ urls: [`${server.base}/slow`], type: "rss", timeoutMs: 150 });
    const fine = readFeed({
      urls: [`${server.base}/feeds/wordpress.xml`],
      type: "rss",
      timeoutMs: 150,
    });
    const order: string[] = [];
    const names = ["long", "short", "fine"];
    const note = (i: number) => () => void order.push(names[i]);
    const settled = [long, short, fine].map((p, i) => p.then(note(i), note(i)));
    await rejects(short, /slow: timed out after 150 ms$/);
    assert.ok((await fine).entries.length > 0);
    await rejects(long, /hang: timed out after 600 ms$/);
    await Promise.all(settled);
    assert.deepEqual(order, ["fine", "short", "long"]);
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: the caller's signal stops every request in flight", async () => {
  const server = startFeedServer();
  try {
    const controller = new AbortController();
    const reads = [`${server.base}/hang`, `${server.base}/slow`].map((url) =>
      readFeed({ urls: [url], type: "rss", timeoutMs: 30_000, signal: controller.signal })
    );
    controller.abort(new Error("stop"));
    for (const read of reads) await rejects(read, /: cancelled$/);
    // A signal that is already aborted stops a request before it starts.
    await rejects(
      readFeed({
        urls: [`${server.base}/feeds/wordpress.xml`],
        type: "rss",
        signal: controller.signal,
      }),
      /: cancelled$/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: a refused connection is a one-line error naming the URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await rejects(
    readFeed({ urls: [`http://127.0.0.1:${port}/feed`], type: "rss" }),
    new RegExp(`^http://127\\.0\\.0\\.1:${port}/feed: connection refused$`),
  );
});

Deno.test("readFeed: credentials in a URL never appear in errors", async () => {
  const server = startFeedServer();
  try {
    const url = server.base.replace("http://", "http://user:hunter2@") + "/status/404";
    const error = await rejects(readFeed({ urls: [url], type: "rss" }), /HTTP 404/);
    assert.ok(!error.message.includes("hunter2"));
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: the charset from Content-Type is used", async () => {
  const server = startFeedServer();
  try {
    const type = encodeURIComponent("text/xml; charset=koi8-r");
    const read = await readFeed({
      urls: [`${server.base}/typed/koi8-r.xml?type=${type}`],
      type: "rss",
    });
    assert.equal(read.title, "Новости");
  } finally {
    await server.close();
  }
});
