import assert from "node:assert/strict";
import { type HealthSnapshot, schedulerHealthy } from "../../src/forward/health.ts";
import {
  METRICS_CONTENT_TYPE,
  MetricsAddressError,
  parseMetricsAddress,
  serveHealth,
} from "../../src/forward/health_server.ts";
import { ForwardMetrics } from "../../src/forward/metrics.ts";
import { parseExposition, sampleValue } from "../support/prom_text.ts";
import { modulesLoadedBy } from "../support/module_graph.ts";

Deno.test("--metrics: host:port, [IPv6]:port, and a bare port that binds loopback", () => {
  const cases: [string, string, number][] = [
    ["127.0.0.1:9464", "127.0.0.1", 9464],
    ["0.0.0.0:9464", "0.0.0.0", 9464],
    ["localhost:80", "localhost", 80],
    ["metrics.example.lan:9464", "metrics.example.lan", 9464],
    ["[::1]:9464", "::1", 9464],
    ["[::]:9464", "::", 9464],
    ["[fe80::1:2]:1", "fe80::1:2", 1],
    // A bare port binds every interface, as exporters do.
    [":9464", "0.0.0.0", 9464],
    ["9464", "0.0.0.0", 9464],
    [" 127.0.0.1:65535 ", "127.0.0.1", 65535],
  ];
  for (const [input, hostname, port] of cases) {
    assert.deepEqual(parseMetricsAddress(input), { hostname, port }, input);
  }
});

Deno.test("--metrics: bad addresses get one clear line each", () => {
  const cases: [string, RegExp][] = [
    ["", /^--metrics "": expected HOST:PORT, \[IPV6\]:PORT or :PORT$/],
    ["localhost", /expected HOST:PORT/],
    ["127.0.0.1:", /missing port/],
    ["127.0.0.1:http", /missing port/],
    ["127.0.0.1:0", /port must be from 1 to 65535$/],
    ["127.0.0.1:65536", /port must be from 1 to 65535$/],
    [":99999", /port must be from 1 to 65535$/],
    ["::1:9464", /put an IPv6 address in brackets, as in \[::1\]:9464$/],
    ["[::1]", /expected HOST:PORT/],
    ["[nope]:9464", /"nope" is not an IPv6 address$/],
    ["[::1]9464", /expected HOST:PORT/],
    ["256.1.1.1:9464", /"256.1.1.1" is not a host name or address$/],
    ["bad_host:9464", /"bad_host" is not a host name or address$/],
    ["http://127.0.0.1:9464", /: give HOST:PORT, not a URL$/],
  ];
  for (const [input, pattern] of cases) {
    assert.throws(
      () => parseMetricsAddress(input),
      (e) =>
        e instanceof MetricsAddressError && pattern.test(e.message) && !e.message.includes("\n"),
      input,
    );
  }
});

const at = (iso: string) => new Date(`2026-11-23T${iso}Z`);

Deno.test("scheduler health: stalled only when the expected tick is later than the slack", () => {
  const slack = 30_000;
  const ms = (iso: string) => at(iso).getTime();
  assert.equal(schedulerHealthy(ms("14:00:00"), ms("14:01:00"), ms("14:00:30"), slack), true);
  assert.equal(schedulerHealthy(ms("14:00:00"), ms("14:01:00"), ms("14:01:30"), slack), true);
  assert.equal(schedulerHealthy(ms("14:00:00"), ms("14:01:00"), ms("14:01:30.001"), slack), false);
  // Before the first tick the same bound applies.
  assert.equal(schedulerHealthy(null, ms("14:01:00"), ms("14:05:00"), slack), false);
  // Nothing scheduled: nothing can be late.
  assert.equal(schedulerHealthy(ms("14:00:00"), null, ms("20:00:00"), slack), true);
  // The tick happened; only the expectation was not updated yet.
  assert.equal(schedulerHealthy(ms("14:01:00"), ms("14:01:00"), ms("14:09:00"), slack), true);
  // A clock stepped backward makes nothing overdue.
  assert.equal(schedulerHealthy(ms("14:00:00"), ms("14:01:00"), ms("13:00:00"), slack), true);
});

Deno.test("health server: /healthz ok and stalled, /metrics parses, 404, 405, HEAD", async () => {
  const metrics = new ForwardMetrics();
  metrics.recordRun("blog", "ok", 0.8);
  metrics.recordSent("blog", 2);
  metrics.recordMessengerResponse(200);
  let snapshot: HealthSnapshot = { ok: true, feeds: 3, lastTick: at("14:00:00") };
  const server = serveHealth({
    hostname: "127.0.0.1",
    port: 0,
    metrics,
    health: () => snapshot,
    startedAt: at("13:00:00"),
    now: () => at("14:00:30.9"),
  });
  try {
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    let res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    assert.deepEqual(await res.json(), {
      status: "ok",
      feeds: 3,
      last_tick: "2026-11-23T14:00:00.000Z",
      uptime_s: 3630,
    });

    snapshot = { ok: false, feeds: 3, lastTick: at("13:58:00") };
    res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), {
      status: "stalled",
      feeds: 3,
      last_tick: "2026-11-23T13:58:00.000Z",
      uptime_s: 3630,
    });

    res = await fetch(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), METRICS_CONTENT_TYPE);
    const families = parseExposition(await res.text());
    assert.equal(sampleValue(families, "courier_feed_entries_sent_total", { feed: "blog" }), 2);
    assert.equal(sampleValue(families, "courier_messenger_responses_total", { code: "200" }), 1);
    assert.ok(sampleValue(families, "process_resident_memory_bytes")! > 0);

    res = await fetch(`${server.url}/metrics?x=1`);
    assert.equal(res.status, 200);
    await res.body?.cancel();

    for (const path of ["/", "/metrics/", "/healthz/x", "/favicon.ico"]) {
      res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
    for (const method of ["POST", "PUT", "DELETE"]) {
      res = await fetch(`${server.url}/metrics`, { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "GET, HEAD");
      await res.body?.cancel();
    }
    res = await fetch(`${server.url}/healthz`, { method: "HEAD" });
    assert.equal(res.status, 503);
    assert.equal(await res.text(), "");
  } finally {
    await server.shutdown();
  }
  await assert.rejects(fetch(`${server.url}/healthz`));
});

Deno.test("health server: a health callback that throws is a 503, not a crash", async () => {
  const server = serveHealth({
    hostname: "127.0.0.1",
    port: 0,
    metrics: new ForwardMetrics(),
    health: () => {
      throw new Error("boom");
    },
  });
  try {
    const res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 503);
    const body = await res.json();
    assert.equal(body.status, "error");
    assert.deepEqual(Object.keys(body), ["status", "feeds", "last_tick", "uptime_s"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("health server: a port in use is one line naming the address", async () => {
  const first = serveHealth({
    hostname: "127.0.0.1",
    port: 0,
    metrics: new ForwardMetrics(),
    health: () => ({ ok: true, feeds: 0, lastTick: null }),
  });
  try {
    assert.throws(
      () =>
        serveHealth({
          hostname: "127.0.0.1",
          port: first.port,
          metrics: new ForwardMetrics(),
          health: () => ({ ok: true, feeds: 0, lastTick: null }),
        }),
      (e) =>
        e instanceof MetricsAddressError &&
        e.message === `--metrics 127.0.0.1:${first.port}: cannot listen: address already in use`,
    );
  } finally {
    await first.shutdown();
  }
});

Deno.test("health server: `courier once` never loads it", async () => {
  const loaded = await modulesLoadedBy("src/cli/once.ts");
  assert.ok(loaded.has("src/cli/once_run.ts"));
  assert.ok(!loaded.has("src/forward/health_server.ts"));
});

Deno.test("health server: the loop decides its health without the HTTP module", async () => {
  const loop = new URL("../../src/forward/loop.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", loop],
    stdout: "piped",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string }[];
  };
  const loaded = info.modules.map((m) => m.specifier);
  assert.ok(loaded.some((s) => s.endsWith("/src/forward/health.ts")));
  assert.ok(!loaded.some((s) => s.endsWith("/src/forward/health_server.ts")));
});

Deno.test("health server: /readyz is 503 until ready and again once stopping", async () => {
  let ready = false;
  const server = serveHealth({
    hostname: "127.0.0.1",
    port: 0,
    metrics: new ForwardMetrics(),
    health: () => ({ ok: true, feeds: 1, lastTick: null }),
    ready: () => ready,
  });
  try {
    const status = async () => {
      const res = await fetch(`${server.url}/readyz`);
      return [res.status, (await res.json()).status];
    };
    assert.deepEqual(await status(), [503, "not ready"]);
    ready = true;
    assert.deepEqual(await status(), [200, "ready"]);
    ready = false;
    assert.deepEqual(await status(), [503, "not ready"]);
  } finally {
    await server.shutdown();
  }
});
