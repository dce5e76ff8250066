/**
 * What a failed send says: answers that are not the Bot API's (a proxy's or a load balancer's
 * error page) by their status, once; network failures by their cause and by the place that
 * failed, the messenger's proxy or the API. Real servers and proxies on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { BotApi } from "../../src/messenger/bot_api.ts";
import { ChatError, MessengerError, MessengerFatalError } from "../../src/messenger/errors.ts";
import { Secret } from "../../src/secrets/secret.ts";
import { openProxyClient } from "../../src/net/client.ts";
import { parseProxy } from "../../src/net/proxy.ts";
import { startMicrosocks, startTinyproxy } from "../support/proxy_servers.ts";
import { closedPort, startDropper, startTlsTrouble } from "../support/hostile_servers.ts";

const TOKEN = "123456:TEST-token_abc";
const message = { html: "hi", previews: false };

/**
 * The message one send fails with, without retries (waits are skipped). Checks that neither
 * the token nor any of `secrets` is in it.
 */
async function failure(
  baseUrl: string,
  options: { proxy?: string; caCerts?: string[]; timeoutMs?: number; secrets?: string[] } = {},
): Promise<MessengerError> {
  const proxied = options.proxy === undefined
    ? null
    : await openProxyClient(parseProxy(options.proxy), { caCerts: options.caCerts });
  const api = new BotApi({
    baseUrl,
    token: new Secret(TOKEN),
    retries: 0,
    sleep: () => Promise.resolve(),
    ...(proxied?.client ? { client: proxied.client } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  try {
    await api.send("@news_chan", message);
  } catch (error) {
    assert.ok(error instanceof MessengerError, String(error));
    for (const secret of [TOKEN, "TEST-token", ...(options.secrets ?? [])]) {
      assert.ok(!error.message.includes(secret), error.message);
    }
    return error;
  } finally {
    await proxied?.close();
  }
  throw new Error("expected the send to fail");
}

const UNAVAILABLE = "chat @news_chan: messenger unavailable after 1 attempt";
const sendUrl = (base: string) => `${base}/bot[redacted]/sendMessage`;

/** A raw HTTP/1.1 server answering every request with `statusLine` and `body`. */
function startRawServer(statusLine: string, body: string, type = "text/html") {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const encoder = new TextEncoder();
  const serving = (async () => {
    for await (const conn of listener) {
      try {
        await conn.read(new Uint8Array(65536));
        const head = [statusLine, `Content-Type: ${type}`, `Content-Length: ${body.length}`];
        await conn.write(
          encoder.encode(`${head.join("\r\n")}\r\nConnection: close\r\n\r\n${body}`),
        );
      } finally {
        conn.close();
      }
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    async close() {
      listener.close();
      await serving;
    },
  };
}

const PAGE =
  "<html><head><title>502 Bad Gateway</title></head><body><h1>HTTP 502</h1></body></html>";

for (
  const [statusLine, said] of [
    ["HTTP/1.1 502 Bad Gateway", "HTTP 502 Bad Gateway"],
    ["HTTP/1.1 502 HTTP 502", "HTTP 502 Bad Gateway"],
    ["HTTP/1.1 502 ", "HTTP 502 Bad Gateway"],
    ["HTTP/1.1 503 Service Unavailable", "HTTP 503 Service Unavailable"],
    ["HTTP/1.1 504 Gateway Time-out", "HTTP 504 Gateway Timeout"],
  ]
) {
  Deno.test(`messenger: "${statusLine}" with an HTML body reads "${said}", once`, async () => {
    const server = startRawServer(statusLine, PAGE);
    try {
      const error = await failure(server.url);
      assert.ok(error instanceof ChatError);
      assert.equal(error.message, `${UNAVAILABLE}: ${sendUrl(server.url)}: ${said}`);
    } finally {
      await server.close();
    }
  });
}

Deno.test("messenger: a 200 whose body is not Bot API JSON fails the chat and says so", async () => {
  for (
    const [body, type] of [["<html>Welcome to the hotel wifi</html>", "text/html"], [
      "{}",
      "application/json",
    ]]
  ) {
    const server = startRawServer("HTTP/1.1 200 OK", body, type);
    try {
      const error = await failure(server.url);
      assert.ok(error instanceof ChatError);
      assert.equal(
        error.message,
        `chat @news_chan: ${sendUrl(server.url)}: HTTP 200 OK, not a Bot API answer`,
      );
    } finally {
      await server.close();
    }
  }
});

Deno.test("messenger: a dead HTTP proxy is named, with its password masked", async () => {
  const proxy = await startTinyproxy({ user: "alice", pass: "s3cret-pw" });
  await proxy.stop(); // its port now refuses
  const port = new URL(proxy.url).port;
  for (const base of [`http://127.0.0.1:${closedPort()}`, "https://api.courier-test.invalid"]) {
    const error = await failure(base, { proxy: proxy.url, secrets: ["s3cret"] });
    assert.equal(
      error.message,
      `${UNAVAILABLE}: proxy http://alice:***@127.0.0.1:${port} (messenger): connection refused`,
    );
  }
});

Deno.test("messenger: a dead SOCKS proxy is named, with its password masked", async () => {
  const proxy = await startMicrosocks({ user: "bob", pass: "s3cret-pw" });
  await proxy.stop();
  const port = new URL(proxy.url).port;
  for (const base of [`http://127.0.0.1:${closedPort()}`, "https://api.courier-test.invalid"]) {
    const error = await failure(base, { proxy: proxy.url, secrets: ["s3cret"] });
    // Deno's SOCKS client does not tell refused from unreachable.
    assert.equal(
      error.message,
      `${UNAVAILABLE}: proxy socks5://bob:***@127.0.0.1:${port} (messenger): ` +
        "cannot connect (refused or unreachable)",
    );
  }
});

Deno.test("messenger: an HTTP proxy that cannot reach the API says so, and is named", async () => {
  const proxy = await startTinyproxy({ user: "alice", pass: "s3cret-pw" });
  const shown = `http://alice:***@127.0.0.1:${new URL(proxy.url).port}`;
  try {
    // Plain http: tinyproxy answers with its own 500 page (no Via header).
    const plain = await failure(`http://127.0.0.1:${closedPort()}`, {
      proxy: proxy.url,
      secrets: ["s3cret"],
    });
    assert.equal(
      plain.message,
      `${UNAVAILABLE}: proxy ${shown} (messenger): HTTP 500 Internal Server Error`,
    );
    // https: the proxy refuses the CONNECT tunnel.
    const base = `https://127.0.0.1:${closedPort()}`;
    const tunnel = await failure(base, { proxy: proxy.url, secrets: ["s3cret"] });
    assert.equal(
      tunnel.message,
      `${UNAVAILABLE}: ${sendUrl(base)}: cannot open a tunnel to the server (says proxy ${shown})`,
    );
  } finally {
    await proxy.stop();
  }
});

Deno.test("messenger: an error page forwarded by a live proxy is the API's, not the proxy's", async () => {
  const proxy = await startTinyproxy();
  const server = startRawServer("HTTP/1.1 502 Bad Gateway", PAGE);
  try {
    const error = await failure(server.url, { proxy: proxy.url });
    assert.equal(error.message, `${UNAVAILABLE}: ${sendUrl(server.url)}: HTTP 502 Bad Gateway`);
    assert.match(proxy.log(), /127\.0\.0\.1/, "the request went through the proxy");
  } finally {
    await server.close();
    await proxy.stop();
  }
});

Deno.test("messenger: a name that does not resolve is a DNS failure", async () => {
  // .invalid never resolves (RFC 6761), with or without a network.
  const base = "https://api.courier-test.invalid";
  const error = await failure(base);
  assert.equal(error.message, `${UNAVAILABLE}: ${sendUrl(base)}: name not resolved (DNS)`);
});

Deno.test("messenger: TLS, an untrusted certificate and a port that does not speak TLS", async () => {
  const servers = await startTlsTrouble(() =>
    Response.json({ ok: true, result: { message_id: 1 } })
  );
  try {
    const selfSigned = `https://127.0.0.1:${servers.selfSignedPort}`;
    assert.equal(
      (await failure(selfSigned)).message,
      `${UNAVAILABLE}: ${sendUrl(selfSigned)}: ` +
        "TLS failure: certificate not accepted (not issued by a trusted CA)",
    );
    const notTls = `https://127.0.0.1:${servers.plainPort}`;
    assert.equal(
      (await failure(notTls)).message,
      `${UNAVAILABLE}: ${sendUrl(notTls)}: ` +
        "TLS failure: the server does not speak TLS there (is it an https port?)",
    );
  } finally {
    await servers.close();
  }
});

Deno.test("messenger: a server that drops the connection before answering is a reset", async () => {
  const dropper = startDropper();
  const base = `http://127.0.0.1:${dropper.port}`;
  try {
    assert.equal(
      (await failure(base)).message,
      `${UNAVAILABLE}: ${sendUrl(base)}: connection closed before the answer (reset)`,
    );
  } finally {
    await dropper.close();
  }
});

Deno.test("messenger: a server that never answers times out, and says where", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const serving = (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  const base = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  try {
    assert.equal(
      (await failure(base, { timeoutMs: 200 })).message,
      `${UNAVAILABLE}: ${sendUrl(base)}: no answer within 200 ms`,
    );
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await serving;
  }
});

Deno.test("messenger: an HTTP proxy refusing the password stops the run and names the proxy", async () => {
  const proxy = await startTinyproxy({ user: "alice", pass: "s3cret-pw" });
  const wrong = proxy.url.replace(":s3cret-pw@", ":wrong-pw@");
  try {
    // tinyproxy answers a wrong password on a plain-http request with its own 401 page.
    const error = await failure(`http://127.0.0.1:${closedPort()}`, {
      proxy: wrong,
      secrets: ["s3cret", "wrong-pw"],
    });
    assert.ok(error instanceof MessengerFatalError, error.message);
    assert.equal(
      error.message,
      `proxy http://alice:***@127.0.0.1:${new URL(proxy.url).port} (messenger): ` +
        "HTTP 401 Unauthorized; the proxy to the messenger asks for credentials, " +
        "check messenger_proxy's user name and password",
    );
  } finally {
    await proxy.stop();
  }
});
