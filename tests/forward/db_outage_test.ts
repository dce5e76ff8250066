/**
 * The database server stopped for two minutes (the injected clock) and started again on the
 * same file and port, against the real Hrana server: writes fail with one line naming the URL
 * (never the token), the lease failure is logged once for the whole outage, the process stops
 * trusting its leases (so nothing is sent that could not be recorded), and after the restart
 * the leases are renewed and the state holds each entry once. The default lease (60 s) is the
 * point: its renewals fail all through the outage. db_outage_process_test.ts stops the server
 * under a real `forward` on a sped-up clock, with a lease that outlasts the outage, so that
 * its runs go on failing every minute and nothing it posts is lost or doubled.
 */
import assert from "node:assert/strict";
import type { Entry } from "../../src/model/entry.ts";
import { Leases } from "../../src/forward/leases.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { Store } from "../../src/store/db.ts";
import { memoryLogger } from "../support/forward_stubs.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";
import { ManualClock } from "../support/manual_clock.ts";

const TOKEN = "outage-db-token-77";
const entry = (id: string) => ({ id, title: id, link: `https://example.org/${id}` }) as Entry;

Deno.test({
  name: "db_url outage of two minutes: one line naming the URL, leases not trusted, back after",
  ignore: hranaMissing() !== null,
  async fn() {
    const dir = await Deno.makeTempDir();
    let server = await startHrana(`${dir}/state.db`);
    const clock = new ManualClock(Date.UTC(2025, 5, 1));
    const { logger, lines } = memoryLogger();
    const store = (await Store.openAt(
      { kind: "remote", url: server.url, authToken: new Secret(TOKEN) },
      { clock },
    ))!;
    const leases = new Leases({ store, clock, logger, holder: "one", ttlMs: 60_000 });
    leases.setChannels(["@news"]);
    try {
      await leases.refresh();
      assert.ok(leases.holds("@news"));
      await store.markSent("news", entry("before"), "@news", 1, new Date(clock.now()));

      await server.stop();
      const failure = await store.markSent("news", entry("during"), "@news", 2, new Date())
        .then(() => null, (error: Error) => error.message);
      assert.ok(failure !== null, "a write without the server fails");
      assert.ok(failure.startsWith(`cannot record a sent message in ${server.url}`), failure);
      assert.ok(!failure.includes("\n") && !failure.includes(TOKEN), failure);
      // Two minutes of renewals every 15 s, all failing: one error line, and the lease is no
      // longer trusted, so a feed run would stop before its next send.
      for (let t = 0; t < 120_000; t += 15_000) {
        await clock.advance(15_000);
        await leases.refresh();
      }
      assert.equal(leases.holds("@news"), false);
      const errors = lines.filter((l) => l.includes("level=error"));
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.ok(errors[0].includes(server.url) && !errors[0].includes(TOKEN), errors[0]);

      server = await startHrana(`${dir}/state.db`, { port: server.port });
      await leases.refresh();
      assert.ok(leases.holds("@news"), "the lease is taken again after the outage");
      assert.ok(lines.some((l) => l.includes("leases renewed again")));
      const seen = await store.lookup("news", ["before", "during"]);
      assert.deepEqual([...seen.seen], ["before"], "nothing recorded that was not written");
      await store.markSent("news", entry("during"), "@news", 2, new Date(clock.now()));
      const rows = await store.query("SELECT entry_id FROM entries WHERE feed = 'news'");
      assert.deepEqual(rows.map((r) => r[0]).sort(), ["before", "during"]);
    } finally {
      await leases.stop();
      store.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
