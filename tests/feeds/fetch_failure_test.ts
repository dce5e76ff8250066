import assert from "node:assert/strict";
import { fetchFeedUrl } from "../../src/feeds/fetch.ts";
import { readFeed } from "../../src/feeds/read.ts";
import { openProxyClient } from "../../src/net/client.ts";
import { parseProxy } from "../../src/net/proxy.ts";
import { startMicrosocks, startTinyproxy } from "../support/proxy_servers.ts";
import { closedPort, startDropper, startTlsTrouble } from "../support/hostile_servers.ts";

const OPTIONS = { timeoutMs: 20_000, maxBytes: 1_000_000 };

/** The message fetchFeedUrl fails with. */
async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the fetch to fail");
}

Deno.test("fetch failure: a refused connection says so and names the URL", async () => {
  const url = `http://127.0.0.1:${closedPort()}/feed.xml`;
  assert.equal(await failure(fetchFeedUrl(url, OPTIONS)), `${url}: connection refused`);
});

Deno.test("fetch failure: a name that does not resolve is a DNS failure", async () => {
  // .invalid never resolves (RFC 6761), with or without a network.
  const url = "http://feed.courier-test.invalid/feed.xml";
  assert.equal(await failure(fetchFeedUrl(url, OPTIONS)), `${url}: name not resolved (DNS)`);
});

Deno.test("fetch failure: a server that drops the connection before answering", async () => {
  const server = startDropper();
  try {
    const url = `http://127.0.0.1:${server.port}/feed.xml`;
    assert.equal(
      await failure(fetchFeedUrl(url, OPTIONS)),
      `${url}: connection closed before the answer (reset)`,
    );
  } finally {
    await server.close();
  }
});

Deno.test("fetch failure: TLS, an untrusted certificate and a port that does not speak TLS", async () => {
  const servers = await startTlsTrouble(() => new Response("<rss/>"));
  try {
    const selfSigned = `https://127.0.0.1:${servers.selfSignedPort}/feed.xml`;
    assert.equal(
      await failure(fetchFeedUrl(selfSigned, OPTIONS)),
      `${selfSigned}: TLS failure: certificate not accepted (not issued by a trusted CA)`,
    );
    const notTls = `https://127.0.0.1:${servers.plainPort}/feed.xml`;
    assert.equal(
      await failure(fetchFeedUrl(notTls, OPTIONS)),
      `${notTls}: TLS failure: the server does not speak TLS there (is it an https port?)`,
    );
  } finally {
    await servers.close();
  }
});

Deno.test("fetch failure: a dead HTTP proxy is named, with its password masked", async () => {
  const proxy = await startTinyproxy({ user: "alice", pass: "s3cret-pw" });
  await proxy.stop(); // its port now refuses
  const proxied = await openProxyClient(parseProxy(proxy.url));
  const client = proxied.client;
  const port = new URL(proxy.url).port;
  try {
    const message = await failure(
      readFeed({
        urls: [`http://127.0.0.1:${closedPort()}/feed.xml`],
        type: "rss",
        client,
        feed: "x",
      }),
    );
    assert.equal(
      message,
      `proxy http://alice:***@127.0.0.1:${port} (feed "x"): connection refused`,
    );
    assert.doesNotMatch(message, /s3cret/);
  } finally {
    await proxied.close();
  }
});

Deno.test("fetch failure: a dead SOCKS proxy is named, with its password masked", async () => {
  const proxy = await startMicrosocks({ user: "bob", pass: "s3cret-pw" });
  await proxy.stop();
  const proxied = await openProxyClient(parseProxy(proxy.url));
  const client = proxied.client;
  const port = new URL(proxy.url).port;
  try {
    const url = `http://127.0.0.1:${closedPort()}/feed.xml`;
    const message = await failure(fetchFeedUrl(url, { ...OPTIONS, client, feed: "x" }));
    assert.equal(
      message,
      `proxy socks5://bob:***@127.0.0.1:${port} (feed "x"): cannot connect (refused or unreachable)`,
    );
    assert.doesNotMatch(message, /s3cret/);
    // Without a feed name the proxy still comes first, and the URL says what it was for.
    assert.equal(
      await failure(fetchFeedUrl(url, { ...OPTIONS, client })),
      `proxy socks5://bob:***@127.0.0.1:${port} (for ${url}): cannot connect (refused or unreachable)`,
    );
  } finally {
    await proxied.close();
  }
});

Deno.test("fetch failure: through a live SOCKS proxy, a dead server is the server's failure", async () => {
  const proxy = await startMicrosocks();
  const proxied = await openProxyClient(parseProxy(proxy.url));
  const client = proxied.client;
  try {
    const url = `http://127.0.0.1:${closedPort()}/feed.xml`;
    assert.equal(
      await failure(fetchFeedUrl(url, { ...OPTIONS, client, feed: "x" })),
      `${url}: connection refused (says the proxy)`,
    );
    const unknown = "http://feed.courier-test.invalid/feed.xml";
    assert.equal(
      await failure(fetchFeedUrl(unknown, { ...OPTIONS, client, feed: "x" })),
      `${unknown}: cannot reach the server (says the proxy)`,
    );
  } finally {
    await proxied.close();
    await proxy.stop();
  }
});

Deno.test("fetch failure: a proxy that refuses the credentials (407) is named", async () => {
  // An HTTP proxy that answers every request 407 (tinyproxy answers 401 instead).
  const strict = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () =>
      new Response("<html>no</html>", {
        status: 407,
        headers: { "proxy-authenticate": 'Basic realm="proxy"', "content-type": "text/html" },
      }),
  );
  const proxyUrl = `http://alice:wrong-pw@127.0.0.1:${strict.addr.port}`;
  const proxied = await openProxyClient(parseProxy(proxyUrl));
  try {
    const url = `http://127.0.0.1:${closedPort()}/feed.xml`;
    const message = await failure(
      fetchFeedUrl(url, { ...OPTIONS, client: proxied.client, feed: "x" }),
    );
    assert.equal(
      message,
      `proxy http://alice:***@127.0.0.1:${strict.addr.port} (feed "x"): ` +
        "HTTP 407 Proxy Authentication Required (check the proxy's user name and password)",
    );
    assert.doesNotMatch(message, /wrong-pw/);
  } finally {
    await proxied.close();
    await strict.shutdown();
  }
});
