import assert from "node:assert/strict";
import { searchOf } from "../../src/browse/http/input.ts";
import { allowedHosts, hostAllowed, urlHostAllowed } from "../../src/browse/http/security.ts";

const URLS = [
  "http://127.0.0.1:8080/api/query?query=SELECT%20*%20FROM%20t%20WHERE%20id%20%3D%201",
  "http://127.0.0.1:8080/api/query?query=a+b&params=%5B1%2C2%5D&format=csv",
  "http://127.0.0.1:8080/api/query?query=1&query=2#frag?query=3",
  "http://127.0.0.1:8080/api/query?query=%E2%82%AC%zz%&format=",
  "http://127.0.0.1:8080/api/query?query=é'\"<>`",
  "http://127.0.0.1:8080/api/query?=x&query",
  "http://127.0.0.1:8080/api/query?",
  "http://127.0.0.1:8080/api/query",
  "http://LOCALHOST:8080/api/query?query=SELECT+1",
];

Deno.test("searchOf: the same parameters as the URL parser's searchParams", () => {
  for (const url of URLS) {
    const expected = [...new URL(url).searchParams];
    assert.deepEqual([...searchOf(url)], expected, url);
  }
});

Deno.test("urlHostAllowed: the same answer as checking the parsed URL's host", () => {
  const hosts = [
    "127.0.0.1:8080",
    "localhost:8080",
    "LocalHost:8080",
    "[::1]:8080",
    "127.0.0.1:08080",
    "user@127.0.0.1:8080",
    "127.0.0.1:8080@evil.example",
    "evil.example:8080",
    "127.0.0.1",
    "127.0.0.1:80",
    "127.0.0.2:8080",
  ];
  for (const [bind, port] of [["127.0.0.1", 8080], ["127.0.0.1", 80], ["::1", 8080]] as const) {
    const allowed = allowedHosts(bind, port);
    for (const host of hosts) {
      for (const url of [`http://${host}/api/query?query=1`, `http://${host}`]) {
        let parsed: string | null = null;
        try {
          parsed = new URL(url).host;
        } catch { /* refused either way */ }
        const expected = parsed !== null && hostAllowed(allowed, parsed);
        assert.equal(urlHostAllowed(allowed, url), expected, `${bind}:${port} ${url}`);
      }
    }
    assert.equal(urlHostAllowed(allowed, "not a url"), false);
  }
  assert.equal(urlHostAllowed(null, "http://anything.example/"), true);
});
