/**
 * `once` against the local fake Bot API when the messenger holds a channel for a day, refuses
 * one message's content or is down: the run must end, and the other feeds and entries go on.
 */
import assert from "node:assert/strict";
import { ONCE_MAX_MESSENGER_WAIT_MS, runOnce } from "../../src/forward/once.ts";
import { BotApi } from "../../src/messenger/bot_api.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { Store } from "../../src/store/db.ts";
import type { FeedSettings } from "../../src/config/types.ts";
import { makeEntry, makeFeed, memoryLogger, StubReader } from "../support/forward_stubs.ts";
import { CONTENT_REFUSALS, startFakeBotApi } from "../support/fake_bot_api.ts";
import { formatSummary } from "../../src/forward/summary.ts";
import { isMessageRefusal } from "../../src/messenger/errors.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { createClient } from "npm:@libsql/client@^0.18.0";

const url = (name: string) => `https://feeds.example/${name}.xml`;

/**
 * The client's waits move the virtual clock at once (and are added up), so a test learns what a
 * wait would have cost without waiting.
 */
async function harness(retries = 0) {
  // A virtual monotonic clock: ManualClock's advance settles asynchronously, and the client
  // reads the time right after its sleep resolves.
  let t = 1_000_000;
  let waited = 0;
  const fake = await startFakeBotApi({ now: () => t, limits: null });
  const dir = await Deno.makeTempDir();
  const store = (await Store.open(dir))!;
  const reader = new StubReader();
  const { logger, lines } = memoryLogger();
  const outbox = new BotApi({
    baseUrl: fake.url,
    token: new Secret(fake.token),
    now: () => t,
    sleep: (ms) => {
      waited += ms;
      t += ms;
      return Promise.resolve();
    },
    retries,
  });
  const run = (feeds: FeedSettings[]) =>
    runOnce({
      feeds,
      read: reader.read,
      state: store,
      outbox,
      successLog: { record: () => Promise.resolve() },
      logger,
      concurrency: 4,
    });
  return {
    fake,
    store,
    reader,
    lines,
    run,
    waited: () => waited,
    close: async () => {
      store.close();
      await fake.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("once: a retry_after of 100000 s fails that channel's feeds at once, entries kept; other channels deliver", async () => {
  const h = await harness();
  try {
    const held = makeFeed("held", { channel: "@chan_held" });
    const sameChannel = makeFeed("held2", { channel: "@chan_held" });
    const free = makeFeed("free", { channel: "@chan_free" });
    h.reader.feeds.set(url("held"), [makeEntry("a", 1), makeEntry("b", 2)]);
    h.reader.feeds.set(url("held2"), [makeEntry("c", 3)]);
    h.reader.feeds.set(url("free"), [makeEntry("d", 4), makeEntry("e", 5)]);
    h.fake.inject({ kind: "429", chat: "@chan_held", retryAfter: 100_000 });

    const summary = await h.run([held, sameChannel, free]);
    const byName = new Map(summary.results.map((r) => [r.feed, r]));
    const expected = "rate limited by the messenger for 27 h 46 min; entries kept";
    assert.equal(byName.get("held")!.error, expected);
    assert.equal(byName.get("held")!.failed, 2);
    // The channel stays held: its next feed does not ask again, nor wait.
    assert.match(
      byName.get("held2")!.error ?? "",
      /^rate limited by the messenger for 27 h 46 min/,
    );
    assert.equal(byName.get("free")!.error, null);
    assert.equal(byName.get("free")!.sent, 2);
    assert.deepEqual(h.fake.messages("@chan_free").map((m) => m.bold[0]), ["Title d", "Title e"]);
    assert.equal(h.fake.messages("@chan_held").length, 0);
    assert.equal(h.fake.throttled, 1);
    // What the huge retry_after now costs `once`: no wait at all (bound: 60 s).
    assert.equal(h.waited(), 0);
    assert.ok(h.lines.some((l) => l.includes("feed failed") && l.includes("27 h 46 min")));
    const kept = await h.store.query("SELECT count(*) FROM entries WHERE feed LIKE 'held%'");
    assert.deepEqual(kept, [[0]]);
  } finally {
    await h.close();
  }
});

Deno.test("once: a retry_after within the bound is waited out and the message goes", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("short", { channel: "@chan_short" });
    h.reader.feeds.set(url("short"), [makeEntry("a", 1)]);
    h.fake.inject({ kind: "429", chat: "@chan_short", retryAfter: 60 });
    const summary = await h.run([feed]);
    assert.equal(summary.results[0].error, null);
    assert.equal(summary.results[0].sent, 1);
    assert.equal(h.waited(), 60_000);
    assert.equal(ONCE_MAX_MESSENGER_WAIT_MS, 60_000);
  } finally {
    await h.close();
  }
});

Deno.test("once: [bad, good, good] where the HTML of the bad one is refused: it goes as plain text, the good ones go, a second run sends nothing", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("mixed", { channel: "@chan_mixed" });
    h.reader.feeds.set(url("mixed"), [makeEntry("bad", 1), makeEntry("g1", 2), makeEntry("g2", 3)]);
    h.fake.inject({
      kind: "refuse",
      textContains: "Title bad",
      htmlOnly: true,
      times: Infinity,
      description: CONTENT_REFUSALS.entities,
    });
    const first = await h.run([feed]);
    assert.equal(first.results[0].error, null);
    assert.equal(first.results[0].sent, 3);
    assert.equal(first.results[0].refused, 0);
    const posted = h.fake.messages("@chan_mixed");
    assert.deepEqual(posted.map((m) => m.text.split("\n")[0]), [
      "Title bad",
      "Title g1",
      "Title g2",
    ]);
    // The plain form: no parse mode, so no bold and no link entity; the URL itself as text.
    assert.equal(posted[0].text, "Title bad\nhttps://example.org/bad");
    assert.deepEqual(posted[0].bold, []);
    assert.deepEqual(posted[1].bold, ["Title g1"]);
    assert.ok(h.lines.some((l) => l.includes("sending it as plain text")));

    const requests = h.fake.requests;
    const second = await h.run([feed]);
    assert.equal(second.results[0].sent, 0);
    assert.equal(h.fake.requests, requests);
  } finally {
    await h.close();
  }
});

for (const [name, description] of Object.entries(CONTENT_REFUSALS)) {
  Deno.test(`once: an entry refused in every form (${name}) is recorded refused and the feed goes on`, async () => {
    const h = await harness();
    try {
      const feed = makeFeed("stuck", { channel: "@chan_stuck" });
      h.reader.feeds.set(url("stuck"), [
        makeEntry("bad", 1),
        makeEntry("g1", 2),
        makeEntry("g2", 3),
      ]);
      h.fake.inject({ kind: "refuse", textContains: "Title bad", times: Infinity, description });
      const first = await h.run([feed]);
      assert.equal(first.results[0].error, null);
      assert.equal(first.results[0].sent, 2);
      assert.equal(first.results[0].refused, 1);
      assert.equal(first.results[0].failed, 0);
      assert.deepEqual(h.fake.messages("@chan_stuck").map((m) => m.bold[0]), [
        "Title g1",
        "Title g2",
      ]);
      const rows = await h.store.query(
        "SELECT entry_id, status, chat_id, message_id FROM entries ORDER BY entry_id",
      );
      assert.deepEqual(rows, [
        ["bad", "refused", "@chan_stuck", null],
        ["g1", "sent", "@chan_stuck", 1],
        ["g2", "sent", "@chan_stuck", 2],
      ]);
      assert.ok(
        h.lines.some((l) => l.includes("entry refused by the messenger") && l.includes("bad")),
      );
      assert.match(formatSummary(first.results), /1 refused by the messenger/);

      const requests = h.fake.requests;
      const second = await h.run([feed]);
      assert.equal(second.results[0].sent, 0);
      assert.equal(second.results[0].refused, 0);
      assert.equal(h.fake.requests, requests, "the refused entry is not tried again");
    } finally {
      await h.close();
    }
  });
}

Deno.test("once: a chat-level 400 (chat not found) still fails the feed and keeps every entry", async () => {
  const h = await harness();
  try {
    const feed = makeFeed("gone", { channel: "@chan_gone" });
    h.reader.feeds.set(url("gone"), [makeEntry("a", 1), makeEntry("b", 2)]);
    h.fake.inject({ kind: "chat_not_found", chat: "@chan_gone" });
    const first = await h.run([feed]);
    assert.match(first.results[0].error ?? "", /chat not found/);
    assert.equal(first.results[0].refused, 0);
    assert.equal(first.results[0].failed, 2);
    assert.deepEqual(await h.store.query("SELECT count(*) FROM entries"), [[0]]);
    const second = await h.run([feed]);
    assert.equal(second.results[0].sent, 2);
  } finally {
    await h.close();
  }
});

Deno.test("refusals are told apart by the description", () => {
  for (const d of Object.values(CONTENT_REFUSALS)) assert.ok(isMessageRefusal(400, d), d);
  for (
    const d of [
      "Bad Request: chat not found",
      "Bad Request: not enough rights to send text messages to the chat",
      "Forbidden: bot was kicked from the channel chat",
      "Bad Request: CHAT_WRITE_FORBIDDEN",
      "Forbidden: bot is not a member of the channel chat",
      "Bad Request: something new",
    ]
  ) {
    assert.ok(!isMessageRefusal(d.startsWith("Forbidden") ? 403 : 400, d), d);
  }
  assert.ok(!isMessageRefusal(403, CONTENT_REFUSALS.entities));
});

Deno.test("migration 5: a version 4 database keeps its entries and accepts 'refused'", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const client = createClient({ url: `file:${dir}/courier.db` });
    for (let v = 0; v < 4; v++) {
      await client.batch([...MIGRATIONS[v], `PRAGMA user_version = ${v + 1}`], "write");
    }
    await client.execute(
      `INSERT INTO entries (feed, entry_id, title, status, seen_at, last_seen_at, sent_at,
         chat_id, message_id)
       VALUES ('f', 'a', 't', 'sent', '2020-01-01', '2020-01-02', '2020-01-01', '@c', 7)`,
    );
    client.close();
    const store = (await Store.open(dir))!;
    try {
      assert.equal(await store.version(), SCHEMA_VERSION);
      assert.deepEqual(
        await store.query("SELECT entry_id, status, last_seen_at, message_id FROM entries"),
        [["a", "sent", "2020-01-02", 7]],
      );
      await store.markRefused("f", makeEntry("b"), "@c", new Date(0));
      // A sent entry is never turned into a refused one.
      await store.markRefused("f", makeEntry("a"), "@c", new Date(0));
      assert.deepEqual(
        await store.query("SELECT entry_id, status FROM entries ORDER BY entry_id"),
        [["a", "sent"], ["b", "refused"]],
      );
      assert.deepEqual(
        await store.query(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entries' AND sql IS NOT NULL ORDER BY name",
        ),
        // The rebuilt table keeps its index; schema 7 adds the one of sends by time.
        [["entries_by_last_seen"], ["entries_by_sent"]],
      );
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("once: while the messenger is down for a channel, its first feed pays the retry ladder and the others fail at once, entries kept", async () => {
  const h = await harness(5);
  try {
    const feeds = ["down1", "down2", "down3"].map((n) => makeFeed(n, { channel: "@chan_down" }));
    const free = makeFeed("free", { channel: "@chan_free" });
    h.reader.feeds.set(url("down1"), [makeEntry("a", 1), makeEntry("b", 2)]);
    h.reader.feeds.set(url("down2"), [makeEntry("c", 3)]);
    h.reader.feeds.set(url("down3"), [makeEntry("d", 4)]);
    h.reader.feeds.set(url("free"), [makeEntry("e", 5)]);
    h.fake.inject({ kind: "500", chat: "@chan_down", times: Infinity });
    const summary = await h.run([...feeds, free]);
    const byFeed = new Map(summary.results.map((r) => [r.feed, r]));
    // One ladder (6 attempts, 1+2+4+8+16 s of backoff), not one per feed.
    assert.equal(h.fake.requests, 6 + 1);
    assert.equal(h.waited(), 31_000);
    for (const name of ["down1", "down2", "down3"]) {
      const r = byFeed.get(name)!;
      assert.equal(r.step, "send", name);
      assert.equal(r.sent, 0, name);
    }
    assert.match(byFeed.get("down2")!.error!, /messenger unavailable \(HTTP 500 .*\); not tried/);
    assert.equal(byFeed.get("down1")!.failed, 2);
    assert.deepEqual(h.fake.messages().map((m) => m.bold[0]), ["Title e"]);
    // Nothing of the failed channel is recorded: its entries go at the next run.
    const sent = await h.store.query("SELECT count(*) FROM entries WHERE status = 'sent'");
    assert.deepEqual(sent, [[1]]);
  } finally {
    await h.close();
  }
});
