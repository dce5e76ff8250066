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
const T0 = Date.parse("2025-03-01T12:00:00Z");

function entry(id: string): Entry {
  return { id, title: `title ${id}`, link: `https://example.com/${id}` } as Entry;
}

/** Everything a feed run and the lease protocol ask of the store, on `location`. */
async function exercise(location: StateLocation): Promise<void> {
  const remote = location.kind === "remote";
  const a = (await Store.openAt(location))!;
  const b = (await Store.openAt(location))!;
  try {
    assert.equal(await a.version(), SCHEMA_VERSION);
    assert.equal(await a.isEmpty(), true);
    await a.recordFirstSighting("news", [entry("old")], new Date(T0));
    // A server stamps a send with its own clock, whatever the client says; a local file with
    // the time given (the process's clock is the database's).
    await a.markSent("news", entry("n1"), "-100", 7, new Date(Date.now() - 600_000));
    await a.markSent("news", entry("n2"), "-100", 8, new Date());
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
    const sent = await b.sentWithin(60_000);
    assert.deepEqual(sent.map((s) => s.chat), remote ? ["-100", "-100"] : ["-100"]);
    for (const { agoMs } of sent) assert.ok(agoMs >= 0 && agoMs < 60_000, `${agoMs} ms ago`);
    a.recordSuccess("news", new Date(T0 + 3000));
    await a.flushSuccesses();
    // An older time never moves the record back.
    b.recordSuccess("news", new Date(T0));
    await b.flushSuccesses();
    assert.deepEqual(await b.lastSuccesses(), new Map([["news", new Date(T0 + 3000)]]));

    // Leases, on the database's clock only: no time comes from the client. A TTL of 0 ends a
    // lease (and the holder's presence) at once, as if it had run out.
    const claim = (store: Store, holder: string, take: string[], renew: string[], ttlMs = 60_000) =>
      store.claimLeases({ holder, ttlMs, release: [], renew, take, maxTake: take.length });
    const expiry = async (channel: string) =>
      (await b.query("SELECT expires_at FROM leases WHERE channel = ?", [channel]))[0]?.[0];
    // A takes both channels, B none while A's are valid.
    const first = await claim(a, "A", ["@one", "@two"], []);
    assert.deepEqual(first.held.sort(), ["@one", "@two"]);
    const blocked = await claim(b, "B", ["@one", "@two"], []);
    assert.deepEqual(blocked.held, []);
    assert.equal(blocked.holders, 2);
    // A renews one, lets the other run out; B takes only the expired one.
    await claim(a, "A", [], ["@one"]);
    const ended = await claim(a, "A", [], ["@two"], 0);
    assert.deepEqual(ended.held, ["@two"], "renewed, for no time");
    const later = await claim(b, "B", ["@one", "@two"], []);
    assert.deepEqual(later.held, ["@two"]);
    const bExpiry = await expiry("@two");
    // A's renewal of the lease B took changes nothing: the row names B, and its expiry stays
    // B's (a stale renewal must not move it).
    const renewed = await claim(a, "A", [], ["@one", "@two"], 1);
    assert.deepEqual(renewed.held, ["@one"]);
    assert.equal(await expiry("@two"), bExpiry, "B's lease untouched by A's renewal");
    const holders = await b.leaseHolders();
    assert.equal(holders.get("@one")?.holder, "A");
    assert.equal(holders.get("@two")?.holder, "B");
    const left = holders.get("@two")!.remainingMs;
    assert.ok(left > 50_000 && left <= 60_000, `the server's view: ${left} ms left`);
    // A dies without handing back: once its presence expired, the next claim drops its row
    // (a process killed every day would otherwise leave a row a day for good).
    await claim(a, "A", [], [], 0);
    const alone = await claim(b, "B", [], ["@two"]);
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
    assert.equal((await again.lookup("news", [])).known, true);
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
