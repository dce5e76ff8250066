/**
 * Fairness between clients on a real `courier browse` process: one client's runaway queries
 * queue behind each other, not in front of another client's cheap query. Clients are told
 * apart by source address: all of 127.0.0.0/8 is loopback on Linux, so client A connects from
 * 127.0.0.2 and client B from 127.0.0.3 to the server on 127.0.0.1.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { makeFixtureDb } from "../support/browse_fixtures.ts";
import { childPids, startBrowseProcess } from "../support/browse_process.ts";
import { bounded } from "../support/deadline.ts";
import { parseResponse } from "../support/raw_http.ts";
import { QUEUE_PER_WORKER } from "../../src/browse/pool/pool.ts";

const ENDLESS =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c";
const TOKEN = "fair-clients-token-1234";

interface Sent {
  /** The answer once the server has sent it whole and closed. */
  answer: Promise<{ status: number; headers: Headers; body: string }>;
  /** Whether the answer has come. */
  answered: () => boolean;
  close(): void;
}

/** POSTs `query` on a connection of its own from `from`; the caller awaits or closes it. */
function post(
  port: number,
  from: string,
  query: string,
  headers: Record<string, string> = {},
): Sent {
  const body = JSON.stringify({ query });
  const head = [
    "POST /api/query HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Connection: close",
    "Content-Type: application/json",
    `Content-Length: ${body.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join("\r\n");
  const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
  socket.write(`${head}\r\n\r\n${body}`);
  const parts: Uint8Array[] = [];
  let done = false;
  const answer = new Promise<{ status: number; headers: Headers; body: string }>(
    (resolve, reject) => {
      socket.on("data", (b: Uint8Array) => parts.push(new Uint8Array(b)));
      socket.on("error", reject);
      socket.on("close", () => {
        const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let o = 0;
        for (const p of parts) {
          all.set(p, o);
          o += p.length;
        }
        try {
          const r = parseResponse(all);
          done = true;
          resolve({ status: r.status, headers: r.headers, body: new TextDecoder().decode(r.body) });
        } catch (error) {
          reject(error);
        }
      });
    },
  );
  answer.catch(() => {});
  return { answer, answered: () => done, close: () => socket.destroy() };
}

const variants: { name: string; args: string[]; a: (i: number) => Record<string, string> }[] = [
  { name: "each runaway on a connection of its own", args: [], a: () => ({}) },
  {
    // The identity header forged from outside, a different one on each request, with the
    // proxy headers a naive server would trust: still one client.
    name: "with forged identity headers",
    args: [],
    a: (i) => ({
      "X-Courier-Client": crypto.randomUUID(),
      "X-Forwarded-For": `10.0.0.${i}`,
      "Forwarded": `for=10.0.1.${i}`,
    }),
  },
  {
    name: "both clients holding the token",
    args: ["--token", TOKEN],
    a: () => ({ Authorization: `Bearer ${TOKEN}` }),
  },
];

for (const v of variants) {
  Deno.test(
    `fair clients: another client's SELECT 1 is answered while one client's runaways are in flight, ${v.name}`,
    bounded(60_000, async (deadline) => {
      const path = await makeFixtureDb();
      // A limit no test waits for: A's runaways are in flight for the whole test.
      const server = await startBrowseProcess([path, "--timeout", "50s", ...v.args]);
      const runaways: Sent[] = [];
      try {
        const port = Number(new URL(server.url).port);
        const workers = childPids(server.pid).length;
        assert.ok(workers >= 2, `workers: ${workers}`);
        // More than the workers, the spares and the whole queue hold: some must be refused.
        const held = workers + Math.max(1, Math.floor(workers / 2)) + QUEUE_PER_WORKER * workers;
        const count = Math.max(40, held + 10);
        for (let i = 0; i < count; i++) {
          runaways.push(post(port, "127.0.0.2", `${ENDLESS} -- ${i}`, v.a(i)));
        }
        // Every request beyond what the pool holds is refused at once, so once that many are,
        // the queue is full of A's runaways and A's others run (the spare taking one, at most).
        const refused = new Set<Sent>();
        await deadline.within(
          "A's runaways beyond the queue refused",
          new Promise<void>((resolve, reject) => {
            for (const r of runaways) {
              r.answer.then((a) => {
                if (a.status !== 503) return reject(new Error(`A got ${a.status}: ${a.body}`));
                refused.add(r);
                if (refused.size >= count - held) resolve();
              }, reject);
            }
          }),
        );
        const cheap = post(port, "127.0.0.3", "SELECT 1", v.a(0));
        const b = await deadline.within("B's SELECT 1", cheap.answer);
        assert.equal(b.status, 200, b.body);
        assert.deepEqual(JSON.parse(b.body).rows, [[1]]);
        // B's answer came while A's runaways were still in flight: those running and those
        // queued, but the one refused to make room for B.
        const inFlight = runaways.filter((r) => !r.answered()).length;
        const least = workers + QUEUE_PER_WORKER * workers - 1;
        assert.ok(inFlight >= least, `A's runaways in flight when B was answered: ${inFlight}`);
        // What A got meanwhile: only 503s with Retry-After (one more made room for B).
        for (const r of runaways.filter((r) => r.answered())) {
          const a = await r.answer;
          assert.equal(a.status, 503, a.body);
          assert.match(a.headers.get("retry-after") ?? "", /^\d+$/);
        }
      } finally {
        for (const r of runaways) r.close();
        await server.stop();
      }
    }),
  );
}
