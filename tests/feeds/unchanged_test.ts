import { bodyHashOf } from "../../src/feeds/body_hash.ts";
import assert from "node:assert/strict";
import { readFeed } from "../../src/feeds/read.ts";

const rss = (items: [guid: string, link: string][]) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>${
    items.map(([guid, link]) =>
      `<item><title>${guid}</title><guid>${guid}</guid><link>${link}</link></item>`
    ).join("")
  }</channel></rss>`;

/**
 * Serves mutable bodies: `/plain/NAME` with no validators at all (every answer a 200), and
 * `/etag/NAME` with an ETag derived from the body (304 when it matches).
 */
function startServer(bodies: Map<string, string>) {
  const requests: { path: string; conditional: boolean }[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    const [, kind, name] = new URL(req.url).pathname.split("/");
    const body = bodies.get(name);
    requests.push({ path: `/${kind}/${name}`, conditional: req.headers.has("if-none-match") });
    if (body === undefined) return new Response("no", { status: 404 });
    const headers: Record<string, string> = { "content-type": "application/rss+xml" };
    if (kind === "etag") {
      headers.etag = `"${body.length}"`;
      if (req.headers.get("if-none-match") === headers.etag) {
        return new Response(null, { status: 304, headers });
      }
    }
    return new Response(body, { headers });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}

const PINNED = "xxh64:93b3d7cd024e17a4";

Deno.test("readFeed: a 200 with the same body as the last read is unchanged, like a 304", async () => {
  const bodies = new Map([["a", rss([["g1", "https://x/1"], ["g2", "https://x/2"]])]]);
  const server = startServer(bodies);
  try {
    const url = `${server.base}/plain/a`;
    const first = await readFeed({ urls: [url], type: "rss" });
    assert.equal(first.entries.length, 2);
    const stored = first.validators.get(url)!;
    assert.equal(stored.etag, null);
    assert.match(stored.bodyHash ?? "", /^xxh64:[0-9a-f]{16}$/);

    const same = await readFeed({ urls: [url], type: "rss", validators: first.validators });
    assert.deepEqual(same.notModified, [url]);
    assert.deepEqual(same.entries, []);
    assert.deepEqual(same.validators.get(url), stored);

    // Without the stored hash (no successful run yet) the same body is parsed.
    const fresh = await readFeed({ urls: [url], type: "rss" });
    assert.equal(fresh.entries.length, 2);

    bodies.set("a", rss([["g1", "https://x/1"], ["g2", "https://x/2"], ["g3", "https://x/3"]]));
    const changed = await readFeed({ urls: [url], type: "rss", validators: first.validators });
    assert.deepEqual(changed.notModified, []);
    assert.deepEqual(changed.entries.map((e) => e.id), ["g3", "g2", "g1"]);
    assert.notEqual(changed.validators.get(url)!.bodyHash, stored.bodyHash);
  } finally {
    await server.close();
  }
});

Deno.test("readFeed: when one URL of a feed changed, the unchanged ones are parsed too", async () => {
  // Both URLs carry an entry with the same link: the merge keeps only A's. Were B read alone on
  // the second run, its entry would come back unrecorded, as new.
  const bodies = new Map([
    ["a", rss([["a1", "https://x/shared"]])],
    ["b", rss([["b1", "https://x/shared"]])],
    ["c", rss([["c1", "https://x/c1"]])],
  ]);
  const server = startServer(bodies);
  try {
    const a = `${server.base}/etag/a`; // answers 304 to its validators
    const c = `${server.base}/plain/c`; // answers 200 with the same body
    const b = `${server.base}/plain/b`; // changes
    const urls = [a, c, b];
    const first = await readFeed({ urls, type: "rss" });
    assert.deepEqual(first.entries.map((e) => e.id), ["a1", "c1"]);

    const steady = await readFeed({ urls, type: "rss", validators: first.validators });
    assert.deepEqual(steady.notModified, urls, "all unchanged: nothing parsed");
    assert.deepEqual(steady.entries, []);

    bodies.set("b", rss([["b2", "https://x/b2"], ["b1", "https://x/shared"]]));
    server.requests.length = 0;
    const second = await readFeed({ urls, type: "rss", validators: first.validators });
    assert.deepEqual(second.notModified, []);
    assert.deepEqual(second.entries.map((e) => e.id), ["a1", "c1", "b2"]);
    // A answered 304 and was fetched again, unconditionally, for its body.
    assert.deepEqual(
      server.requests.filter((r) => r.path === "/etag/a").map((r) => r.conditional),
      [true, false],
    );
    assert.deepEqual(second.validators.get(a), first.validators.get(a));
  } finally {
    await server.close();
  }
});

Deno.test("bodyHashOf depends on final URL, content type and every byte, and is stable", () => {
  const body = new TextEncoder().encode("<rss>é</rss>");
  const hash = bodyHashOf("https://a.example/feed", "text/xml", body);
  // Pinned: stored hashes must keep matching across versions, or every feed is parsed again.
  assert.equal(hash, PINNED);
  assert.match(hash, /^xxh64:[0-9a-f]{16}$/);
  const others = [
    bodyHashOf("https://a.example/feed", null, body),
    bodyHashOf("https://a.example/feed", "text/xml; charset=utf-8", body),
    bodyHashOf("https://b.example/feed", "text/xml", body),
    bodyHashOf("https://a.example/feed", "text/xml", body.subarray(0, body.length - 1)),
    bodyHashOf("https://a.example/feed", "text/xml", body.map((b, i) => i === 3 ? b ^ 1 : b)),
  ];
  for (const other of others) assert.notEqual(other, hash);
  assert.equal(new Set(others).size, others.length);
  // A view into a larger buffer hashes its own bytes only.
  const framed = new Uint8Array(body.length + 8);
  framed.set(body, 4);
  assert.equal(bodyHashOf("https://a.example/feed", "text/xml", framed.subarray(4, -4)), hash);
});
