import assert from "node:assert/strict";
import { describeProxy, parseProxy, ProxyError, type ProxySpec } from "../../src/net/proxy.ts";

/** The spec with the password revealed, for deepEqual. */
function plain(spec: ProxySpec): Record<string, unknown> {
  const { password, ...rest } = spec;
  return password === undefined ? rest : { ...rest, password: password.reveal() };
}

Deno.test("parseProxy: http, https with default and explicit ports", () => {
  assert.deepEqual(plain(parseProxy("http://proxy.local")), {
    kind: "http",
    url: "http://proxy.local:80",
    host: "proxy.local",
    port: 80,
  });
  assert.deepEqual(plain(parseProxy("HTTPS://Proxy.Local:8443/")), {
    kind: "https",
    url: "https://proxy.local:8443",
    host: "proxy.local",
    port: 8443,
  });
  assert.equal(plain(parseProxy("https://p")).port, 443);
  assert.equal(plain(parseProxy("http://10.0.0.1:3128")).port, 3128);
  assert.equal(plain(parseProxy("http://[::1]:3128")).url, "http://[::1]:3128");
});

Deno.test("parseProxy: socks5 and socks5h", () => {
  assert.deepEqual(plain(parseProxy("socks5://127.0.0.1")), {
    kind: "socks5",
    url: "socks5://127.0.0.1:1080",
    remoteDns: false,
    host: "127.0.0.1",
    port: 1080,
  });
  assert.deepEqual(plain(parseProxy("socks5h://Tor.Local:9050")), {
    kind: "socks5",
    url: "socks5h://tor.local:9050",
    remoteDns: true,
    host: "tor.local",
    port: 9050,
  });
});

Deno.test("parseProxy: credentials are percent-decoded and kept out of url", () => {
  const spec = parseProxy("socks5://al%20ice:p%40ss%3Aw0rd@h:1");
  assert.deepEqual(plain(spec), {
    kind: "socks5",
    url: "socks5://h:1",
    remoteDns: false,
    host: "h",
    port: 1,
    username: "al ice",
    password: "p@ss:w0rd",
  });
  assert.equal(String(spec.password), "[redacted]");
  assert.deepEqual(plain(parseProxy("http://bob@h")), {
    kind: "http",
    url: "http://h:80",
    host: "h",
    port: 80,
    username: "bob",
    password: "",
  });
});

Deno.test("parseProxy: socks5 over a unix socket", () => {
  assert.deepEqual(plain(parseProxy("socks5://unix/run/tor/socks")), {
    kind: "socks5-unix",
    path: "/run/tor/socks",
  });
  assert.deepEqual(plain(parseProxy("socks5://unix//tmp/a%20b.sock")), {
    kind: "socks5-unix",
    path: "/tmp/a b.sock",
  });
  assert.deepEqual(plain(parseProxy("socks5h://u:s3cr%2Ft@unix/x.sock")), {
    kind: "socks5-unix",
    path: "/x.sock",
    username: "u",
    password: "s3cr/t",
  });
  // A host that merely starts with "unix" or has a port is an ordinary TCP proxy.
  assert.equal(parseProxy("socks5://unix:1080").kind, "socks5");
  assert.equal(parseProxy("socks5://unixhost").kind, "socks5");
});

Deno.test("parseProxy: rejects invalid values with a one-line ProxyError", () => {
  const cases: Array<[string, RegExp]> = [
    ["", /expected scheme/],
    ["proxy.local:3128", /expected scheme/],
    ["ftp://h:21", /unsupported scheme "ftp"/],
    ["socks4://h:1080", /unsupported scheme/],
    ["http://h:3128/path", /no path/],
    ["http://h:3128?x=1", /no path/],
    ["socks5://h:1080/x", /no path/],
    ["http://h#f", /no path/],
    ["socks5://:1080", /not a valid URL/],
    ["http://", /not a valid URL|empty host/],
    ["http://h:0", /port/],
    ["http://h:65536", /not a valid URL/],
    ["socks5://h:abc", /not a valid URL/],
    [" http://h", /whitespace/],
    ["http://h\n", /whitespace/],
    ["http://:pw@h", /without a user name/],
    ["http://u:%zz@h", /percent-encoding in password/],
    ["socks5://unix", /missing socket path/],
    ["socks5://unix/", /missing socket path/],
    ["socks5://unix/../run/x.sock", /absolute/],
    ["socks5://unix/./x.sock", /absolute/],
    ["socks5://unix/run/", /directory/],
    ["socks5://unix/run/x.sock?x", /no query/],
  ];
  for (const [value, reason] of cases) {
    assert.throws(() => parseProxy(value), (e: unknown) => {
      assert.ok(e instanceof ProxyError, `${value}: ${e}`);
      assert.match(e.message, reason, value);
      assert.ok(!e.message.includes("\n"), value);
      return true;
    });
  }
});

Deno.test("parseProxy: error messages never contain the password", () => {
  const pw = "hunter2xyz";
  const bad = [
    `http://user:${pw}@h:3128/path`,
    `http://user:${pw}@h:99999`,
    `http://user:${pw}/x@h:1`,
    `http://user:${pw}#@h:1`,
    `http://user:${pw}?@h:1`,
    `socks5://user:${pw}@:1080`,
    `socks5://user:${pw}@unix/../x`,
    `gopher://user:${pw}@h`,
    `user:${pw}@h:1`,
    `http://user:${pw}%zz@h`,
    `http://user:${pw}@h:1 `,
  ];
  for (const value of bad) {
    assert.throws(() => parseProxy(value), (e: unknown) => {
      assert.ok(e instanceof ProxyError, value);
      assert.ok(!e.message.includes(pw), e.message);
      assert.ok(!e.message.includes("hunter"), e.message);
      return true;
    });
  }
});

Deno.test("describeProxy redacts the password and keeps the rest", () => {
  assert.equal(describeProxy(parseProxy("http://h:3128")), "http://h:3128");
  assert.equal(describeProxy(parseProxy("https://u:secret@h")), "https://u:***@h:443");
  assert.equal(describeProxy(parseProxy("socks5h://u%40x:secret@h:9")), "socks5h://u%40x:***@h:9");
  assert.equal(describeProxy(parseProxy("socks5://unix/run/s.sock")), "socks5://unix/run/s.sock");
  assert.equal(
    describeProxy(parseProxy("socks5://u:secret@unix/run/s.sock")),
    "socks5://u:***@unix/run/s.sock",
  );
});
