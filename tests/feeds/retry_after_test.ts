import assert from "node:assert/strict";
import { readFeed } from "../../src/feeds/read.ts";
import { MAX_PAUSE_MS, parseRetryAfter, ServerPauses } from "../../src/feeds/retry_after.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { FIXTURES } from "../support/feed_server.ts";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

Deno.test("parseRetryAfter: seconds or an HTTP-date; anything else, or the past, is nothing", () => {
  assert.equal(parseRetryAfter("120", NOW), NOW + 120_000);
  assert.equal(parseRetryAfter(" 0 ", NOW), null);
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 13:00:00 GMT", NOW), NOW + 3_600_000);
  assert.equal(parseRetryAfter("Thursday, 01-Jan-26 12:30:00 GMT", NOW), NOW + 1_800_000);
  assert.equal(parseRetryAfter("Thu Jan  1 12:00:10 2026", NOW), NOW + 10_000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 12:00:00 GMT", NOW), null, "in the past");
  for (const bad of [null, "", "-5", "1.5", "soon", "2026-01-01T13:00:00Z", "12 hours"]) {
    assert.equal(parseRetryAfter(bad, NOW), null, String(bad));
  }
  assert.equal(parseRetryAfter("999999999", NOW), NOW + MAX_PAUSE_MS, "capped at a day");
});

/** A feed server whose answer per path the test sets; it counts the requests it gets. */
function server(clock: ManualClock) {
  const hits = new Map<string, number>();
  const answers = new Map<string, () => Response>();
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (answer) return answer();
    return new Response(await Deno.readFile(`${FIXTURES}wordpress.xml`), {
      headers: { "content-type": "application/rss+xml" },
    });
  });
  const base = `http://127.0.0.1:${http.addr.port}`;
  return {
    base,
    hits,
    answers,
    close: () => http.shutdown(),
    httpDate: (ms: number) => new Date(clock.now() + ms).toUTCString(),
  };
}

Deno.test("a 429 with Retry-After pauses that server until then; other servers go on", async () => {
  const clock = new ManualClock(NOW);
  const pauses = new ServerPauses(clock);
  const limited = server(clock);
  const other = server(clock);
  const read = (url: string) => readFeed({ urls: [url], type: "rss", pauses });
  try {
    limited.answers.set(
      "/a.xml",
      () => new Response("slow down", { status: 429, headers: { "retry-after": "120" } }),
    );
    await assert.rejects(
      read(`${limited.base}/a.xml`),
      new RegExp(
        `^FeedError: ${limited.base}/a.xml: HTTP 429 Too Many Requests; ` +
          `not asked again before 2026-01-01T12:02:00Z$`,
      ),
    );
    assert.equal(limited.hits.get("/a.xml"), 1);

    // The same server, this URL or another, is not asked until then.
    for (const path of ["/a.xml", "/b.xml"]) {
      await assert.rejects(
        read(`${limited.base}${path}`),
        new RegExp(
          `^FeedError: ${limited.base}${path}: not fetched: ${limited.base} asked not to be asked ` +
            `again before 2026-01-01T12:02:00Z$`,
        ),
      );
    }
    assert.equal(limited.hits.get("/a.xml"), 1);
    assert.equal(limited.hits.get("/b.xml"), undefined);
    // Another server is not affected.
    assert.ok((await read(`${other.base}/c.xml`)).entries.length > 0);

    await clock.advance(119_999);
    await assert.rejects(read(`${limited.base}/b.xml`), /not fetched/);
    await clock.advance(1);
    limited.answers.delete("/a.xml");
    assert.ok((await read(`${limited.base}/a.xml`)).entries.length > 0);
    assert.equal(limited.hits.get("/a.xml"), 2);
    assert.equal(pauses.size, 0, "a pause that has passed is forgotten");
  } finally {
    await limited.close();
    await other.close();
  }
});

Deno.test("a 503 with an HTTP-date pauses until that date; without a usable one, nothing waits", async () => {
  const clock = new ManualClock(NOW);
  const pauses = new ServerPauses(clock);
  const s = server(clock);
  const read = (path: string) => readFeed({ urls: [`${s.base}${path}`], type: "rss", pauses });
  try {
    s.answers.set("/none", () => new Response("busy", { status: 429 }));
    s.answers.set(
      "/garbage",
      () => new Response("busy", { status: 503, headers: { "retry-after": "later" } }),
    );
    s.answers.set(
      "/past",
      () => new Response("busy", { status: 503, headers: { "retry-after": s.httpDate(-60_000) } }),
    );
    s.answers.set(
      "/teapot",
      () => new Response("no", { status: 418, headers: { "retry-after": "60" } }),
    );
    for (const path of ["/none", "/garbage", "/past", "/teapot"]) {
      await assert.rejects(read(path), (e: Error) => !e.message.includes("not asked again"));
      await assert.rejects(read(path), /HTTP \d+/, "asked again at once");
      assert.equal(s.hits.get(path), 2, path);
    }
    assert.equal(pauses.size, 0);

    s.answers.set(
      "/down",
      () =>
        new Response("down", { status: 503, headers: { "retry-after": s.httpDate(3_600_000) } }),
    );
    await assert.rejects(
      read("/down"),
      /\/down: HTTP 503 Service Unavailable; not asked again before 2026-01-01T13:00:00Z$/,
    );
    await assert.rejects(read("/x"), /not fetched: .* before 2026-01-01T13:00:00Z$/);
    await clock.advance(3_600_000);
    assert.ok((await read("/x")).entries.length > 0);
  } finally {
    await s.close();
  }
});
