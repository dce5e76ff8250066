import assert from "node:assert/strict";
import { causeChain, describeNetworkFailure } from "../../src/net/failure.ts";
import { parseProxy } from "../../src/net/proxy.ts";

/** fetch's shape: a TypeError "fetch failed" whose cause is the HTTP client's error. */
function fetchFailed(inner: string): TypeError {
  return new TypeError("fetch failed", { cause: new Error(inner) });
}

const SENDING =
  "error sending request for url (http://x.example/feed.xml): client error (Connect): ";

Deno.test("causeChain: every message down the causes", () => {
  assert.deepEqual(causeChain(fetchFailed("deep")), ["fetch failed", "deep"]);
  assert.deepEqual(causeChain("plain"), ["plain"]);
});

Deno.test("describeNetworkFailure: the failures a socket can have, named", () => {
  const cases: [string, string][] = [
    [`${SENDING}tcp connect error: Connection refused (os error 111)`, "connection refused"],
    [`${SENDING}tcp connect error: Connection reset by peer (os error 104)`, "connection reset"],
    [`${SENDING}tcp connect error: No route to host (os error 113)`, "no route to host"],
    [`${SENDING}tcp connect error: Network is unreachable (os error 101)`, "network unreachable"],
    [`${SENDING}tcp connect error: Connection timed out (os error 110)`, "connection timed out"],
    [
      `${SENDING}dns error: failed to lookup address information: Name or service not known`,
      "name not resolved (DNS)",
    ],
    [
      `${SENDING}invalid peer certificate: NotValidForName`,
      "TLS failure: certificate not accepted (not valid for this host name)",
    ],
    [
      `${SENDING}invalid peer certificate: Expired`,
      "TLS failure: certificate not accepted (expired)",
    ],
    [`${SENDING}something new`, "something new"],
  ];
  for (const [inner, reason] of cases) {
    assert.deepEqual(describeNetworkFailure(fetchFailed(inner)), { reason, atProxy: false }, inner);
  }
});

Deno.test("describeNetworkFailure: through a proxy, who failed", () => {
  const http = parseProxy("http://127.0.0.1:3128");
  const socks = parseProxy("socks5://127.0.0.1:1080");
  const refused = fetchFailed(`${SENDING}tcp connect error: Connection refused (os error 111)`);
  assert.deepEqual(describeNetworkFailure(refused, http, "http://x.example/feed.xml"), {
    reason: "connection refused",
    atProxy: true,
  });
  assert.deepEqual(
    describeNetworkFailure(fetchFailed(`${SENDING}Proxy server unreachable`), socks),
    { reason: "cannot connect (refused or unreachable)", atProxy: true },
  );
  // The proxy is up and says the server refused: the server's failure.
  assert.deepEqual(describeNetworkFailure(fetchFailed(`${SENDING}Connection refused`), socks), {
    reason: "connection refused (says the proxy)",
    atProxy: false,
  });
  // A certificate comes through the tunnel from the server.
  const cert = fetchFailed(`${SENDING}invalid peer certificate: UnknownIssuer`);
  assert.equal(describeNetworkFailure(cert, http, "https://x.example/feed.xml").atProxy, false);
  // socks5:// resolves names locally: with the proxy given as an address, the name is the server's.
  const dns = fetchFailed(
    `${SENDING}failed to lookup address information: Name or service not known`,
  );
  assert.equal(describeNetworkFailure(dns, socks).atProxy, false);
  assert.equal(
    describeNetworkFailure(dns, parseProxy("socks5://proxy.example:1080")).atProxy,
    true,
  );
});
