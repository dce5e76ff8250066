// Deno's resource and op sanitizers (on by default) also check that close() stops the unix relay.
import assert from "node:assert/strict";
import { openProxyClient, type ProxyClient } from "../../src/net/client.ts";
import { parseProxy } from "../../src/net/proxy.ts";
import {
  startHttpsProxy,
  startMicrosocks,
  startTinyproxy,
  startUnixSocks,
} from "../support/proxy_servers.ts";

const PASSWORD = "Sekr3t:p@ss/word";

interface Origin {
  port: number;
  /** `via` header of each request the origin received, "" when absent. */
  seen: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

function startOrigin(): Origin {
  const seen: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      seen.push(req.headers.get("via") ?? "");
      return new Response(`hello ${new URL(req.url).pathname}`);
    },
  );
  return { port: server.addr.port, seen, [Symbol.asyncDispose]: () => server.shutdown() };
}

async function get(pc: ProxyClient, url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { client: pc.client });
  return { status: res.status, body: await res.text() };
}

/** Everything an error would show a user or a log: message, causes, inspected form. */
function errorText(e: unknown): string {
  const parts = [String(e), Deno.inspect(e, { depth: 10 })];
  for (let c = (e as Error).cause; c !== undefined; c = (c as Error).cause) parts.push(String(c));
  return parts.join("\n");
}

async function fetchError(pc: ProxyClient, url: string): Promise<string> {
  try {
    const res = await fetch(url, { client: pc.client });
    await res.body?.cancel();
  } catch (e) {
    return errorText(e);
  }
  assert.fail(`fetch of ${url} succeeded but should have failed`);
}

Deno.test("no proxy: client is undefined and fetch goes direct", async () => {
  await using origin = startOrigin();
  const pc = openProxyClient(null);
  assert.equal(pc.client, undefined);
  assert.deepEqual(await get(pc, `http://127.0.0.1:${origin.port}/d`), {
    status: 200,
    body: "hello /d",
  });
  assert.deepEqual(origin.seen, [""]);
  await pc.close();
});

Deno.test("http proxy (tinyproxy): requests carry its Via header; none once it stops", async () => {
  await using origin = startOrigin();
  const proxy = await startTinyproxy();
  const pc = openProxyClient(parseProxy(proxy.url));
  try {
    const res = await get(pc, `http://127.0.0.1:${origin.port}/a`);
    assert.deepEqual(res, { status: 200, body: "hello /a" });
    assert.match(origin.seen[0], /tinyproxy/);
    await proxy.stop();
    await fetchError(pc, `http://127.0.0.1:${origin.port}/b`);
    assert.equal(origin.seen.length, 1, "no request reached the origin without the proxy");
  } finally {
    await pc.close();
    await proxy.stop();
  }
});

Deno.test("http proxy with basic auth: right password passes, wrong one is refused", async () => {
  await using origin = startOrigin();
  const proxy = await startTinyproxy({ user: "alice", pass: "s3cretPW" });
  const good = openProxyClient(parseProxy(proxy.url));
  const bad = openProxyClient(parseProxy(proxy.url.replace("s3cretPW", "wrongPW99")));
  const none = openProxyClient(parseProxy(proxy.url.replace("alice:s3cretPW@", "")));
  try {
    assert.equal((await get(good, `http://127.0.0.1:${origin.port}/ok`)).status, 200);
    assert.match(origin.seen[0], /tinyproxy/);
    // An HTTP proxy refuses with a response, not a network error: callers see the status.
    const refused = await get(bad, `http://127.0.0.1:${origin.port}/no`);
    assert.ok(refused.status === 401 || refused.status === 407, String(refused.status));
    assert.ok(!refused.body.includes("wrongPW99"));
    assert.equal((await get(none, `http://127.0.0.1:${origin.port}/no`)).status, 407);
    assert.equal(origin.seen.length, 1);
  } finally {
    await good.close();
    await bad.close();
    await none.close();
    await proxy.stop();
  }
});

Deno.test("socks5 proxy (microsocks): the proxy makes the connection to the origin", async () => {
  await using origin = startOrigin();
  const proxy = await startMicrosocks();
  const pc = openProxyClient(parseProxy(proxy.url));
  try {
    assert.deepEqual(await get(pc, `http://127.0.0.1:${origin.port}/s`), {
      status: 200,
      body: "hello /s",
    });
    assert.match(proxy.log(), new RegExp(`connected to 127\\.0\\.0\\.1:${origin.port}`));
    await proxy.stop();
    await fetchError(pc, `http://127.0.0.1:${origin.port}/gone`);
    assert.equal(origin.seen.length, 1);
  } finally {
    await pc.close();
    await proxy.stop();
  }
});

Deno.test("socks5h proxy: the host name is sent to the proxy to resolve", async () => {
  await using origin = startOrigin();
  const proxy = await startMicrosocks();
  const pc = openProxyClient(parseProxy(proxy.url.replace("socks5://", "socks5h://")));
  try {
    assert.equal((await get(pc, `http://localhost:${origin.port}/h`)).body, "hello /h");
    assert.match(proxy.log(), new RegExp(`connected to localhost:${origin.port}`));
  } finally {
    await pc.close();
    await proxy.stop();
  }
});

// Canary, not a wish: Deno's socks5:// does not resolve names locally either (as of 2.9.6).
// If this starts failing, Deno began honouring socks5 vs socks5h; update the README note.
Deno.test("socks5 proxy: Deno sends the host name to the proxy, like socks5h", async () => {
  await using origin = startOrigin();
  const proxy = await startMicrosocks();
  const pc = openProxyClient(parseProxy(proxy.url));
  try {
    assert.equal((await get(pc, `http://localhost:${origin.port}/n`)).body, "hello /n");
    assert.match(proxy.log(), new RegExp(`connected to localhost:${origin.port}`));
  } finally {
    await pc.close();
    await proxy.stop();
  }
});

Deno.test("https proxy (TLS to the proxy): used when its CA is trusted, refused otherwise", async () => {
  await using origin = startOrigin();
  const proxy = await startHttpsProxy();
  const spec = parseProxy(proxy.url);
  assert.equal(spec.kind, "https");
  const trusting = openProxyClient(spec, { caCerts: [proxy.caCert] });
  const untrusting = openProxyClient(spec);
  try {
    assert.equal((await get(trusting, `http://127.0.0.1:${origin.port}/t`)).body, "hello /t");
    assert.match(origin.seen[0], /tinyproxy/);
    const text = await fetchError(untrusting, `http://127.0.0.1:${origin.port}/u`);
    assert.match(text, /certificate/i);
    assert.equal(origin.seen.length, 1);
  } finally {
    await trusting.close();
    await untrusting.close();
    await proxy.stop();
  }
});

// Canary for a Deno 2.9.6 gap: to an https:// proxy, basicAuth is sent on CONNECT (https://
// targets) but not on forwarded http:// requests, so those get 407. If this fails, Deno fixed
// it: drop the README caveat.
Deno.test("https proxy with basic auth: http:// targets get 407 (Deno gap)", async () => {
  await using origin = startOrigin();
  const proxy = await startHttpsProxy({ user: "dave", pass: "Tls.Pass-42" });
  const pc = openProxyClient(parseProxy(proxy.url), { caCerts: [proxy.caCert] });
  try {
    const res = await get(pc, `http://127.0.0.1:${origin.port}/t`);
    assert.equal(res.status, 407);
    assert.ok(!res.body.includes("Tls.Pass-42"));
    assert.equal(origin.seen.length, 0);
  } finally {
    await pc.close();
    await proxy.stop();
  }
});

Deno.test("socks5 with user/password: works; a wrong password fails without leaking", async () => {
  await using origin = startOrigin();
  const proxy = await startMicrosocks({ user: "bob", pass: PASSWORD });
  const good = openProxyClient(parseProxy(proxy.url));
  const wrongPw = "Wr0ngPassw0rd";
  const bad = openProxyClient(
    parseProxy(proxy.url.replace(encodeURIComponent(PASSWORD), wrongPw)),
  );
  try {
    assert.equal((await get(good, `http://127.0.0.1:${origin.port}/x`)).body, "hello /x");
    const text = await fetchError(bad, `http://127.0.0.1:${origin.port}/y`);
    assert.match(text, /auth/i);
    assert.ok(!text.includes(wrongPw), text);
    assert.ok(!text.includes(PASSWORD), text);
    assert.equal(origin.seen.length, 1);
  } finally {
    await good.close();
    await bad.close();
    await proxy.stop();
  }
});

Deno.test("socks5 over a unix socket: relayed through the socket; fails once the proxy stops", async () => {
  await using origin = startOrigin();
  const proxy = await startUnixSocks();
  const spec = parseProxy(proxy.url);
  assert.equal(spec.kind, "socks5-unix");
  const pc = openProxyClient(spec);
  try {
    for (const path of ["/u1", "/u2", "/u3"]) {
      assert.equal((await get(pc, `http://localhost:${origin.port}${path}`)).body, `hello ${path}`);
    }
    assert.match(proxy.log(), new RegExp(`connected to localhost:${origin.port}`));
    await proxy.stop();
    await fetchError(pc, `http://127.0.0.1:${origin.port}/gone`);
    assert.equal(origin.seen.length, 3);
  } finally {
    await pc.close();
    await proxy.stop();
  }
});

Deno.test("socks5 over a unix socket with a password; wrong password fails without leaking", async () => {
  await using origin = startOrigin();
  const proxy = await startUnixSocks({ user: "carol", pass: PASSWORD });
  const good = openProxyClient(parseProxy(proxy.url));
  const bad = openProxyClient(
    parseProxy(proxy.url.replace(encodeURIComponent(PASSWORD), "nope1234")),
  );
  try {
    assert.equal((await get(good, `http://127.0.0.1:${origin.port}/p`)).body, "hello /p");
    const text = await fetchError(bad, `http://127.0.0.1:${origin.port}/q`);
    assert.ok(!text.includes("nope1234"), text);
    assert.ok(!text.includes(PASSWORD), text);
    assert.equal(origin.seen.length, 1);
  } finally {
    await good.close();
    await bad.close();
    await proxy.stop();
  }
});

Deno.test("socks5 over a missing unix socket: fetch fails, process carries on", async () => {
  await using origin = startOrigin();
  const dir = await Deno.makeTempDir();
  const pc = openProxyClient(parseProxy(`socks5://unix${dir}/absent.sock`));
  try {
    for (let i = 0; i < 3; i++) await fetchError(pc, `http://127.0.0.1:${origin.port}/z`);
    assert.equal(origin.seen.length, 0);
  } finally {
    await pc.close();
    await pc.close();
    await Deno.remove(dir, { recursive: true });
  }
});
