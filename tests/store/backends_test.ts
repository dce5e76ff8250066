/**
 * One store, two backends: the same migrations and queries run on a local file (node:sqlite)
 * and on the libSQL project's own Hrana server (HTTP and WebSocket, a persistent SQLite file),
 * so a query that only one engine or one transport takes fails here.
 */
import assert from "node:assert/strict";
import { stateRows } from "../support/state_rows.ts";
import type { Entry } from "../../src/model/entry.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { Store } from "../../src/store/db.ts";
import type { StateLocation } from "../../src/store/location.ts";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";

const missing = hranaMissing();

function entry(id: string): Entry {
  return { id, title: `title ${id}`, link: `https://example.com/${id}` } as Entry;
}

const T0 = Date.parse("2025-03-01T12:00:00Z");

/** Everything a feed run and the lease protocol ask of the store, on `location`. */
async function exercise(location: StateLocation): Promise<void> {
  const a = (await Store.openAt(location))!;
  const b = (await Store.openAt(location))!;
  try {
    assert.equal(await a.version(), SCHEMA_VERSION);
    assert.equal(await a.isEmpty(), true);
    await a.recordFirstSighting("news", [entry("old")], new Date(T0));
    await a.markSent("news", entry("n1"), "-100", 7, new Date(T0 + 1000));
    await a.markSent("news", entry("n2"), "-100", 8, new Date(T0 + 2000));
    const { known, seen } = await b.lookup("news", ["old", "n1", "n2", "n3"]);
    assert.equal(known, true);
    assert.deepEqual([...seen].sort(), ["n1", "n2", "old"]);
    await a.finishRun(
      {
        feed: "news",
        startedAt: new Date(T0),
        finishedAt: new Date(T0 + 3000),
        outcome: "ok",
        fetched: 3,
        new: 2,
        sent: 2,
        failed: 0,
        skipped: 1,
        error: null,
      },
      new Map([["https://example.com/feed", { etag: '"e1"', lastModified: null, bodyHash: "h" }]]),
      ["old", "n1", "n2"],
    );
    await a.flush();
    assert.equal((await b.validators("news")).get("https://example.com/feed")?.etag, '"e1"');
    const sent = await b.sentSince(new Date(T0 + 1500));
    assert.deepEqual(sent, [{ chat: "-100", at: new Date(T0 + 2000) }]);
    a.recordSuccess("news", new Date(T0 + 3000));
    await a.flushSuccesses();
    // An older time never moves the record back.
    b.recordSuccess("news", new Date(T0));
    await b.flushSuccesses();
    assert.deepEqual(await b.lastSuccesses(), new Map([["news", new Date(T0 + 3000)]]));

    // Leases: A takes both channels, B none while A's are valid.
    const claim = (store: Store, holder: string, now: number, take: string[], renew: string[]) =>
      store.claimLeases({
        holder,
        now,
        expiresAt: now + 60_000,
        release: [],
        renew,
        take,
        maxTake: take.length,
      });
    const first = await claim(a, "A", T0, ["@one", "@two"], []);
    assert.deepEqual(first.held.sort(), ["@one", "@two"]);
    const blocked = await claim(b, "B", T0 + 1000, ["@one", "@two"], []);
    assert.deepEqual(blocked.held, []);
    assert.equal(blocked.holders, 2);
    // A renews one, lets the other expire; B takes only the expired one.
    await claim(a, "A", T0 + 30_000, [], ["@one"]);
    const later = await claim(b, "B", T0 + 61_000, ["@one", "@two"], []);
    assert.deepEqual(later.held, ["@two"]);
    // A's renewal of the lease B took changes nothing: the row names B.
    const renewed = await claim(a, "A", T0 + 62_000, [], ["@one", "@two"]);
    assert.deepEqual(renewed.held, ["@one"]);
    const holders = await b.leaseHolders();
    assert.equal(holders.get("@one")?.holder, "A");
    assert.equal(holders.get("@two")?.holder, "B");
    // A dies without handing back: once its presence expired, the next claim drops its row
    // (a process killed every day would otherwise leave a row a day for good).
    const alone = await claim(b, "B", T0 + 200_000, [], []);
    assert.equal(alone.holders, 1);
    assert.deepEqual(await b.query("SELECT holder FROM lease_holders"), [["B"]]);
    await a.releaseLeases("A", [], true);
    assert.deepEqual([...(await b.leaseHolders()).keys()], ["@two"]);
  } finally {
    a.close();
    b.close();
  }
  // Everything is in the database: a new connection finds it.
  const again = (await Store.openAt(location, { readOnly: true }))!;
  try {
    assert.equal(await again.isKnownFeed("news"), true);
    assert.equal((await again.lastSuccesses()).size, 1);
  } finally {
    again.close();
  }
}

Deno.test("store on a local file: migrations, queries, leases", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await exercise({ kind: "file", dbDir: dir });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const [transport, version] of [["http", 2], ["ws", 2], ["ws", 3]] as const) {
  Deno.test({
    name: `store on a Hrana ${version} server over ${transport}: migrations, queries, leases`,
    ignore: missing !== null,
    async fn() {
      const dir = await Deno.makeTempDir();
      const server = await startHrana(`${dir}/remote.db`, { version });
      try {
        const url = server.url.replace(/^http/, transport);
        await exercise({ kind: "remote", url, authToken: new Secret("not-checked-token") });
        // The server's file holds the state, and nothing was written beside it.
        const [row] = stateRows(`${dir}/remote.db`, "SELECT count(*) AS n FROM entries");
        assert.equal(row.n, 3);
      } finally {
        await server.stop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
