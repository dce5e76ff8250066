import assert from "node:assert/strict";
import net from "node:net";
import {
  CLIENT_HEADER,
  clientKey,
  ClientTags,
  insertAt,
} from "../../src/browse/http/client_tag.ts";
import { MessageScanner } from "../../src/browse/http/http_framing.ts";
import type { PoolEvent } from "../../src/browse/pool/pool.ts";
import { makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";
import { bounded } from "../support/deadline.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("client key: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64", () => {
  assert.equal(clientKey("127.0.0.2"), "127.0.0.2");
  assert.equal(clientKey("::ffff:10.1.2.3"), "10.1.2.3");
  assert.equal(clientKey("::ffff:a01:203"), "10.1.2.3");
  assert.equal(clientKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  assert.equal(clientKey("2001:db8:1:2::99"), "2001:db8:1:2::/64");
  assert.equal(clientKey("[2001:DB8:1:2:ffff::1]"), "2001:db8:1:2::/64");
  assert.equal(clientKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(clientKey("::1"), "0:0:0:0::/64");
  assert.equal(clientKey("0:0:0:0:0:FFFF:10.1.2.3"), "10.1.2.3");
  assert.equal(clientKey("::ffff:0:0"), "0.0.0.0");
  assert.equal(clientKey("2001:db8::"), "2001:db8:0:0::/64");
  assert.equal(clientKey("not:an:address"), "not:an:address");
  assert.notEqual(clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:3::1"));
});

Deno.test("client tags: the front's tag maps to its peer; a forged, late or forgotten one does not", () => {
  const tags = new ClientTags();
  const a = tags.open("127.0.0.2");
  const line = text(a.insert(bytes("GET / HTTP/1.1\r\n"), [16]));
  const tag = /x-courier-client: (\S+)\r\n$/.exec(line)![1];
  const headers = (...values: string[]) => {
    const h = new Headers();
    for (const v of values) h.append(CLIENT_HEADER, v);
    return h;
  };
  assert.equal(tags.clientOf(headers(tag)), "127.0.0.2");
  // The front's comes first; a client's own copy after it changes nothing.
  assert.equal(tags.clientOf(headers(tag, crypto.randomUUID())), "127.0.0.2");
  assert.equal(tags.clientOf(headers(crypto.randomUUID())), "");
  assert.equal(tags.clientOf(headers("127.0.0.3")), "");
  assert.equal(tags.clientOf(new Headers()), "");
  a.close();
  assert.equal(tags.clientOf(headers(tag)), "");
  assert.equal(tags.size, 0);
  // Only HTTP/1 request lines are tagged (HTTP/2's preface would break).
  assert.ok(a.follows("POST /api/query HTTP/1.1\r\n"));
  assert.ok(a.follows("GET / HTTP/1.0\n"));
  assert.ok(!a.follows("PRI * HTTP/2.0\r\n"));
});

Deno.test("insertAt: puts the line at each offset, the rest unchanged", () => {
  const out = insertAt(bytes("abcdef"), [0, 2, 6], bytes("-"));
  assert.equal(text(out), "-ab-cdef-");
  const same = bytes("xyz");
  assert.equal(insertAt(same, [], bytes("-")), same);
});

Deno.test("message scanner: request lines found where they end, across pieces, bare LF and blank lines as hyper reads them", () => {
  const lines: [string, number][] = [];
  const heads: string[] = [];
  let ends = 0;
  const s = new MessageScanner("request", {
    line: (l, at) => lines.push([l, at]),
    head: (h) => heads.push(h.split(/\r?\n/)[0]),
    end: () => ends++,
  });
  s.feed(bytes("GET /a HTTP/1.1\r"));
  s.feed(bytes("\nHost: x\r\n\r\n\r\nPOST /b HTTP/1.1\nContent-Length: 3\n\nabc"));
  s.feed(bytes("GET /c HTTP/1.1\r\n\r\n"));
  assert.deepEqual(lines, [["GET /a HTTP/1.1\r\n", 1], ["POST /b HTTP/1.1\n", 31], [
    "GET /c HTTP/1.1\r\n",
    17,
  ]]);
  assert.deepEqual(heads, ["GET /a HTTP/1.1", "POST /b HTTP/1.1", "GET /c HTTP/1.1"]);
  assert.equal(ends, 3);
  assert.ok(s.between);
});

Deno.test("message scanner: a head of many short lines ends at its blank line only, whole or byte by byte", () => {
  // One-byte lines ("X\n", "\r\r\n" is two) are not blank; thousands of lines are one head.
  const message = "GET /a HTTP/1.1\nX\n\r\r\n" + "h: v\n".repeat(5_000) + "Last: 1\r\n\r\n";
  for (const step of [message.length, 1]) {
    const heads: string[] = [];
    let ends = 0;
    const s = new MessageScanner("request", { head: (h) => heads.push(h), end: () => ends++ });
    for (let i = 0; i < message.length; i += step) s.feed(bytes(message.slice(i, i + step)));
    assert.deepEqual(heads, [message]);
    assert.equal(ends, 1);
    assert.ok(s.between);
  }
});

Deno.test("message scanner: a 100 Continue is interim; a 101 ends the following, what comes after unread", () => {
  const events: string[] = [];
  const s = new MessageScanner("response", {
    head: (h) => events.push(h.split("\r\n")[0]),
    end: () => events.push("end"),
    switched: () => events.push("switched"),
  });
  s.feed(bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
  s.feed(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n\x00\x00\x00\x04"));
  s.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
  assert.deepEqual(events, ["HTTP/1.1 200 OK", "end", "switched"]);
  assert.ok(!s.between);
});

Deno.test("message scanner: chunked and sized bodies end where they end, whole or byte by byte", () => {
  const answers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
    "3;x=y\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nTrailer: t\r\n\r\n" +
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" +
    "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n";
  for (const size of [answers.length, 1, 7]) {
    let ends = 0;
    const s = new MessageScanner("response", { head: () => {}, end: () => ends++ });
    for (let i = 0; i < answers.length; i += size) s.feed(bytes(answers.slice(i, i + size)));
    assert.equal(ends, 3, `fed ${size} bytes at a time`);
    assert.ok(s.between);
    s.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nx"));
    assert.ok(!s.between, "one byte of the body is still to come");
  }
});

/** One keep-alive connection from `from`; `send` writes bytes, `read` awaits `n` answers. */
function connection(port: number, from: string) {
  const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
  let got = "";
  const waiters: (() => void)[] = [];
  socket.on("data", (b: Uint8Array) => {
    got += text(new Uint8Array(b));
    for (const f of waiters.splice(0)) f();
  });
  return {
    send: (s: string) => void socket.write(s),
    answers: async (n: number): Promise<string> => {
      while ((got.match(/HTTP\/1\.1 \d{3}/g) ?? []).length < n) {
        await new Promise<void>((r) => waiters.push(r));
      }
      return got;
    },
    close: () => socket.destroy(),
  };
}

Deno.test(
  "front: every request on a connection reaches the pool as its peer's, forged headers ignored, the tag forgotten with its connection",
  bounded(60_000, async (deadline) => {
    const path = await makeFixtureDb();
    const b = await startTestBrowser(path);
    const runs: string[] = [];
    const stop = b.pool.observe((e: PoolEvent) => e.type === "run" && runs.push(e.client));
    const a = connection(b.port, "127.0.0.2");
    const c = connection(b.port, "127.0.0.3");
    try {
      const get = (extra = "") =>
        `GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:${b.port}\r\n${extra}\r\n`;
      // Three requests in one piece (pipelined), the second with a forged tag.
      a.send(get() + get(`${CLIENT_HEADER}: ${crypto.randomUUID()}\r\n`) + get());
      await deadline.within("A's three answers", a.answers(3));
      // One with a bare-LF head and a leading blank line, then a forged peer address.
      c.send(`\r\nGET /api/info HTTP/1.1\nHost: 127.0.0.1:${b.port}\n\n`);
      c.send(get(`${CLIENT_HEADER}: 127.0.0.2\r\nX-Forwarded-For: 127.0.0.2\r\n`));
      const answers = await deadline.within("C's two answers", c.answers(2));
      assert.equal((answers.match(/HTTP\/1\.1 200/g) ?? []).length, 2, answers);
      assert.deepEqual(runs, ["127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"]);
      assert.equal(b.front.tags.size, 2);
    } finally {
      stop();
      a.close();
      c.close();
      await b.close();
    }
    // Each connection's tag goes with it.
    assert.equal(b.front.tags.size, 0);
  }),
);
