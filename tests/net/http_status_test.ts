import assert from "node:assert/strict";
import { describeStatus } from "../../src/net/http_status.ts";

Deno.test("describeStatus: the standard text once, whatever the server's reason says", () => {
  assert.equal(describeStatus(502, "Bad Gateway"), "HTTP 502 Bad Gateway");
  assert.equal(describeStatus(502, ""), "HTTP 502 Bad Gateway");
  assert.equal(describeStatus(502, "<html><body>HTTP 502</body></html>"), "HTTP 502 Bad Gateway");
  assert.equal(describeStatus(404), "HTTP 404 Not Found");
});

Deno.test("describeStatus: an unknown code keeps a short, plain reason or none", () => {
  assert.equal(describeStatus(599, ""), "HTTP 599");
  assert.equal(
    describeStatus(599, "Network <b>Connect</b> Timeout"),
    "HTTP 599 Network Connect Timeout",
  );
  const long = describeStatus(599, "x".repeat(500));
  assert.ok(long.length < 80, long);
  assert.ok(long.endsWith("…"), long);
});

Deno.test("describeStatus: the same standard texts as Node's http.STATUS_CODES", async () => {
  const { STATUS_CODES } = await import("node:http");
  for (const [code, text] of Object.entries(STATUS_CODES)) {
    assert.equal(describeStatus(Number(code), "other"), `HTTP ${code} ${text}`);
  }
  assert.equal(describeStatus(599, "other"), "HTTP 599 other");
});
