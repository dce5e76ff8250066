/**
 * The lease rules on the injected clock, against the real store (a local file opened twice,
 * as two processes would share a server's database): the split, the hand-back, expiry and
 * takeover, trust ending before anyone else may take a lease. The year of two processes killed
 * and restarted at random (never two holders, a dead holder's channels taken within a TTL and
 * a step) is two_process_year_test.ts's, with the feeds, messages and runs it protects.
 */
import assert from "node:assert/strict";
import { Leases, planClaim } from "../../src/forward/leases.ts";
import { Store } from "../../src/store/db.ts";
import { memoryLogger } from "../support/forward_stubs.ts";
import { ManualClock } from "../support/manual_clock.ts";

const TTL = 60_000;

Deno.test("planClaim: a share of ceil(channels / processes), idle channels handed back from the end", () => {
  const busy = (c: string) => c === "@c";
  const plan = planClaim({
    wanted: ["@a", "@b", "@c", "@d"],
    held: new Set(["@a", "@b", "@c", "@d", "@gone"]),
    holders: 2,
    busy,
  });
  // Share 2: @d goes (idle), @c stays (busy), so @b goes instead; @gone left the config.
  assert.deepEqual(plan.renew, ["@a", "@c"]);
  assert.deepEqual([...plan.release].sort(), ["@b", "@d", "@gone"]);
  assert.equal(plan.shareOf, 4, "the store recounts the processes when it takes");
  const alone = planClaim({ wanted: ["@a", "@b"], held: new Set(), holders: 1, busy });
  assert.deepEqual(alone, { release: [], renew: [], take: ["@a", "@b"], maxTake: 2, shareOf: 2 });
  const once = planClaim({
    wanted: ["@a", "@b"],
    held: new Set(),
    holders: 5,
    busy,
    takeAll: true,
  });
  assert.equal(once.maxTake, 2);
  assert.equal(once.shareOf, undefined);
});

async function twoProcesses() {
  const dir = await Deno.makeTempDir();
  const clock = new ManualClock(Date.UTC(2025, 0, 1));
  const { logger } = memoryLogger();
  const open = async (holder: string) => {
    const store = (await Store.open(dir, { clock }))!;
    const leases = new Leases({ store, clock, logger, holder, ttlMs: TTL });
    leases.setChannels(["@a", "@b"]);
    return { store, leases };
  };
  return { dir, clock, open };
}

Deno.test("leases: split between two processes, expiry takeover, trust ends before expiry", async () => {
  const { dir, clock, open } = await twoProcesses();
  const a = await open("A");
  const b = await open("B");
  try {
    const takenByB: string[] = [];
    b.leases.onTaken = (channels) => takenByB.push(...channels);
    await a.leases.refresh();
    assert.ok(a.leases.holds("@a") && a.leases.holds("@b"));
    await b.leases.refresh();
    assert.equal(b.leases.held, 0, "nothing is free yet");
    // A learns there are two processes (one step), then hands back its second channel.
    await a.leases.refresh();
    assert.ok(a.leases.holds("@b"));
    await a.leases.refresh();
    assert.deepEqual([a.leases.holds("@a"), a.leases.holds("@b")], [true, false]);
    await b.leases.refresh();
    assert.deepEqual(takenByB, ["@b"]);
    // A stops renewing (its database unreachable, or it hangs): it stops trusting its lease
    // at 3/4 of the TTL, before B may take it at the TTL.
    await clock.advance(TTL / 2);
    await b.leases.refresh(); // B renews on time
    assert.equal(a.leases.holds("@a"), true);
    await clock.advance(TTL / 4);
    assert.equal(a.leases.holds("@a"), false);
    await b.leases.refresh();
    assert.equal(b.leases.holds("@a"), false, "not expired in the database yet");
    await clock.advance(TTL / 4 + 1);
    await b.leases.refresh();
    assert.ok(b.leases.holds("@a") && b.leases.holds("@b"));
    assert.deepEqual(takenByB, ["@b", "@a"]);
    // A's next step finds the lease gone: counted as lost, and it does not take it back.
    await a.leases.refresh();
    assert.equal(a.leases.lost, 1);
    assert.equal(a.leases.holds("@a"), false);
    // A clean stop hands back at once.
    await b.leases.stop();
    await a.leases.refresh();
    await a.leases.refresh();
    assert.ok(a.leases.holds("@a") && a.leases.holds("@b"));
  } finally {
    await a.leases.stop();
    a.store.close();
    b.store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("leases: a run's tenure ends with the lease, even if the channel is taken back; distrust", async () => {
  const { dir, clock, open } = await twoProcesses();
  const a = await open("A");
  try {
    await a.leases.refresh();
    const run = a.leases.tenure("@a");
    assert.equal(run(), a.leases.until("@a"));
    assert.ok(run() > clock.monotonic());
    // Renewed in time: the same tenure goes on, with the trust moved forward.
    await clock.advance(TTL / 4);
    await a.leases.refresh();
    assert.equal(run(), a.leases.until("@a"));
    // Not renewed for 3/4 of the TTL: trust ends; the next step takes the channel back, but a
    // run planned under the old lease stays fenced (another process may have sent meanwhile).
    await clock.advance((TTL * 3) / 4);
    assert.equal(a.leases.holds("@a"), false);
    await a.leases.refresh();
    assert.equal(a.leases.holds("@a"), true);
    assert.equal(run(), -Infinity);
    assert.ok(a.leases.tenure("@a")() > clock.monotonic(), "a new run may send");
    // A send it could not record: nothing more until a step reaches the database.
    a.leases.distrust();
    assert.equal(a.leases.until("@a"), -Infinity);
    assert.equal(a.leases.holds("@b"), false);
    await a.leases.refresh();
    assert.ok(a.leases.holds("@a") && a.leases.holds("@b"));
  } finally {
    await a.leases.stop();
    a.store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
