import assert from "node:assert/strict";
import {
  DURATION_BUCKETS,
  escapeLabelValue,
  FEED_LABEL_PATTERN,
  formatSampleValue,
  ForwardMetrics,
} from "../../src/forward/metrics.ts";
import { NAME_PATTERN } from "../../src/config/rules.ts";
import { VERSION } from "../../src/version.ts";
import { parseExposition, sampleValue } from "../support/prom_text.ts";
import { modulesLoadedBy } from "../support/module_graph.ts";

const START = new Date("2026-11-23T10:00:00.250Z");

function fixedMetrics(): ForwardMetrics {
  return new ForwardMetrics({
    startTime: START,
    version: "9.8.7",
    process: () => ({
      cpuSeconds: 12.5,
      rss: 52_428_800,
      heapUsed: 12_345_678,
      openFds: 17,
      maxFds: 1024,
    }),
  });
}

Deno.test("metrics: an empty forwarder still exposes every family with its TYPE", () => {
  const families = parseExposition(fixedMetrics().render());
  assert.deepEqual(
    [...families].map(([name, f]) => `${name} ${f.type}`),
    [
      "courier_feed_runs_total counter",
      "courier_feed_entries_sent_total counter",
      "courier_feed_entries_refused_total counter",
      "courier_feed_entries_filtered_total counter",
      "courier_feed_last_success_timestamp_seconds gauge",
      "courier_feed_next_run_timestamp_seconds gauge",
      "courier_feed_run_duration_seconds summary",
      "courier_run_duration_seconds histogram",
      "courier_feed_overlap_skips_total counter",
      "courier_messenger_responses_total counter",
      "courier_build_info gauge",
      "process_cpu_seconds_total counter",
      "process_resident_memory_bytes gauge",
      "courier_heap_used_bytes gauge",
      "process_open_fds gauge",
      "process_max_fds gauge",
      "process_start_time_seconds gauge",
    ],
  );
  for (const [name, f] of families) assert.ok(f.help, `${name} has a HELP line`);
  assert.equal(sampleValue(families, "process_resident_memory_bytes"), 52_428_800);
  assert.equal(sampleValue(families, "courier_heap_used_bytes"), 12_345_678);
  assert.equal(sampleValue(families, "process_start_time_seconds"), 1795428000.25);
  assert.equal(families.get("courier_feed_runs_total")!.samples.length, 0);
});

Deno.test("metrics: runs by outcome, sent entries, overlap skips and timestamps per feed", () => {
  const m = fixedMetrics();
  m.recordRun("blog", "ok", 1.5);
  m.recordRun("blog", "ok", 0.25);
  m.recordRun("blog", "failed", 3);
  m.recordSent("blog", 4);
  m.recordSent("blog", 0);
  m.recordSent("news.daily", 2);
  m.recordOverlapSkip("news.daily");
  m.recordOverlapSkip("news.daily");
  m.setLastSuccess("blog", new Date("2026-11-23T14:00:00.500Z"));
  m.setNextRun("blog", new Date("2026-11-23T14:05:00Z"));
  const f = parseExposition(m.render());
  const runs = (feed: string, outcome: string) =>
    sampleValue(f, "courier_feed_runs_total", { feed, outcome });
  assert.equal(runs("blog", "ok"), 2);
  assert.equal(runs("blog", "failed"), 1);
  // Every outcome is there from the feed's first record, so rate() sees the first failure.
  assert.equal(runs("blog", "aborted"), 0);
  assert.equal(runs("news.daily", "failed"), 0);
  assert.equal(sampleValue(f, "courier_feed_entries_sent_total", { feed: "blog" }), 4);
  assert.equal(sampleValue(f, "courier_feed_entries_sent_total", { feed: "news.daily" }), 2);
  assert.equal(sampleValue(f, "courier_feed_overlap_skips_total", { feed: "news.daily" }), 2);
  assert.equal(sampleValue(f, "courier_feed_overlap_skips_total", { feed: "blog" }), 0);
  assert.equal(
    sampleValue(f, "courier_feed_last_success_timestamp_seconds", { feed: "blog" }),
    Date.parse("2026-11-23T14:00:00.500Z") / 1000,
  );
  assert.equal(
    sampleValue(f, "courier_feed_next_run_timestamp_seconds", { feed: "blog" }),
    Date.parse("2026-11-23T14:05:00Z") / 1000,
  );
  // A feed that never succeeded has the series at 0, so an age alert fires for it.
  assert.equal(
    sampleValue(f, "courier_feed_last_success_timestamp_seconds", { feed: "news.daily" }),
    0,
  );
  // An unknown next run is absent rather than a misleading 0.
  assert.equal(
    sampleValue(f, "courier_feed_next_run_timestamp_seconds", { feed: "news.daily" }),
    undefined,
  );
  m.setNextRun("blog", null);
  assert.equal(
    sampleValue(parseExposition(m.render()), "courier_feed_next_run_timestamp_seconds"),
    undefined,
  );
});

Deno.test("metrics: durations: a summary per feed, one cumulative histogram over all", () => {
  const m = fixedMetrics();
  for (const seconds of [0.2, 0.5, 3]) m.recordRun("blog", "ok", seconds);
  m.recordRun("news", "failed", 400);
  const f = parseExposition(m.render());
  const buckets = f.get("courier_run_duration_seconds")!.samples
    .filter((s) => s.name.endsWith("_bucket"))
    .map((s) => [s.labels.le, s.value]);
  assert.deepEqual(buckets, [
    ["0.5", 2],
    ["1", 2],
    ["2.5", 2],
    ["5", 3],
    ["10", 3],
    ["30", 3],
    ["60", 3],
    ["120", 3],
    ["300", 3],
    ["+Inf", 4],
  ]);
  assert.equal(buckets.length, DURATION_BUCKETS.length + 1);
  assert.equal(sampleValue(f, "courier_run_duration_seconds_sum"), 403.7);
  assert.equal(sampleValue(f, "courier_run_duration_seconds_count"), 4);
  const perFeed = (name: string, feed: string) =>
    sampleValue(f, `courier_feed_run_duration_seconds_${name}`, { feed });
  assert.equal(perFeed("sum", "blog"), 3.7);
  assert.equal(perFeed("count", "blog"), 3);
  assert.equal(perFeed("sum", "news"), 400);
  assert.equal(perFeed("count", "news"), 1);
  // The per-feed summary has no quantiles and nothing else: two series a feed.
  assert.deepEqual(
    f.get("courier_feed_run_duration_seconds")!.samples.map((s) => s.name),
    Array(2).fill([
      "courier_feed_run_duration_seconds_sum",
      "courier_feed_run_duration_seconds_count",
    ]).flat(),
  );
});

Deno.test("metrics: messenger responses by status code, in code order", () => {
  const m = fixedMetrics();
  for (const code of [200, 429, 200, 401, 200]) m.recordMessengerResponse(code);
  const samples = parseExposition(m.render()).get("courier_messenger_responses_total")!.samples;
  assert.deepEqual(samples.map((s) => [s.labels.code, s.value]), [
    ["200", 3],
    ["401", 1],
    ["429", 1],
  ]);
  assert.throws(() => m.recordMessengerResponse(0), RangeError);
  assert.throws(() => m.recordMessengerResponse(200.5), RangeError);
});

Deno.test("metrics: a feed removed by a reload disappears from the output", () => {
  const m = fixedMetrics();
  m.recordRun("gone", "ok", 1);
  m.recordSent("gone", 3);
  m.setNextRun("gone", new Date("2026-11-23T14:05:00Z"));
  m.setLastSuccess("gone", new Date("2026-11-23T14:00:00Z"));
  m.recordOverlapSkip("gone");
  m.recordRun("kept", "ok", 1);
  assert.match(m.render(), /feed="gone"/);
  m.removeFeed("gone");
  m.removeFeed("never-there");
  const text = m.render();
  assert.doesNotMatch(text, /gone/);
  // A feed added after a render (by a reload) is listed, in name order.
  m.recordSent("added", 1);
  const sent = parseExposition(m.render()).get("courier_feed_entries_sent_total")!.samples;
  assert.deepEqual(sent.map((s) => [s.labels.feed, s.value]), [["added", 1], ["kept", 0]]);
  assert.equal(
    sampleValue(parseExposition(text), "courier_feed_runs_total", { feed: "kept", outcome: "ok" }),
    1,
  );
});

Deno.test("metrics: a label that is not a feed name is refused without echoing it", () => {
  const m = fixedMetrics();
  const token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
  for (const bad of [token, "", "-lead", "a b", 'q"uote', "new\nline", "x".repeat(101)]) {
    for (const record of [() => m.recordSent(bad, 1), () => m.setNextRun(bad, new Date())]) {
      assert.throws(record, (e) => e instanceof RangeError && !e.message.includes(token));
    }
  }
  assert.doesNotMatch(m.render(), /feed=/);
  assert.throws(() => m.recordRun("blog", "weird" as "ok", 1), RangeError);
  assert.throws(() => m.recordRun("blog", "ok", -1), RangeError);
  assert.throws(() => m.recordRun("blog", "ok", NaN), RangeError);
  assert.throws(() => m.recordSent("blog", 1.5), RangeError);
});

Deno.test("metrics: the feed label rule is the config's name rule", () => {
  assert.equal(FEED_LABEL_PATTERN, NAME_PATTERN);
});

Deno.test("metrics: label values are escaped, and values spelled, as the text format says", () => {
  const raw = 'a\\b"c\nd';
  assert.equal(escapeLabelValue(raw), 'a\\\\b\\"c\\nd');
  const families = parseExposition(
    `# TYPE t counter\nt{l="${escapeLabelValue(raw)}"} 1\n`,
  );
  assert.equal(families.get("t")!.samples[0].labels.l, raw);
  assert.deepEqual(
    [Infinity, -Infinity, NaN, 0.1, 1e21].map(formatSampleValue),
    ["+Inf", "-Inf", "NaN", "0.1", "1e+21"],
  );
});

Deno.test("metrics: the default memory reading is this process's", () => {
  const f = parseExposition(new ForwardMetrics().render());
  assert.ok(sampleValue(f, "process_resident_memory_bytes")! > 1_000_000);
  assert.ok(sampleValue(f, "courier_heap_used_bytes")! > 0);
  const start = sampleValue(f, "process_start_time_seconds")!;
  assert.ok(start <= Date.now() / 1000 && start > Date.now() / 1000 - 86_400 * 365);
});

Deno.test("metrics: `courier once` never loads the metrics module", async () => {
  const loaded = await modulesLoadedBy("src/cli/once.ts");
  assert.ok(loaded.has("src/cli/once_run.ts"), "the graph reaches once's runner");
  assert.ok(!loaded.has("src/forward/metrics.ts"));
});

Deno.test("metrics: a large exposition (2,000 feeds) is whole and well-formed", () => {
  const m = fixedMetrics();
  for (let i = 0; i < 2000; i++) {
    const feed = `feed-${String(i).padStart(4, "0")}`;
    m.recordRun(feed, "ok", i / 100);
    m.recordSent(feed, i);
  }
  const first = m.render();
  assert.ok(first.length > 64 * 1024, "larger than the writer's first buffer");
  const families = parseExposition(first);
  assert.equal(families.get("courier_feed_runs_total")!.samples.length, 6000);
  assert.equal(
    sampleValue(families, "courier_feed_entries_sent_total", { feed: "feed-1999" }),
    1999,
  );
  assert.equal(sampleValue(families, "process_start_time_seconds"), 1795428000.25);
  // The writer's buffer is reused: a smaller render after a larger one has no leftovers.
  for (let i = 0; i < 2000; i++) m.removeFeed(`feed-${String(i).padStart(4, "0")}`);
  const families2 = parseExposition(m.render());
  assert.equal(families2.get("courier_feed_runs_total")!.samples.length, 0);
  // 10 lines a feed: 3 outcomes, sent, refused, filtered, last success, duration sum and count,
  // overlap skips.
  assert.equal(m.render().split("\n").length, first.split("\n").length - 2000 * 10);
});

Deno.test("metrics: build info, the standard process metrics, refused entries, a feed that never ran", () => {
  const m = fixedMetrics();
  m.addFeed("quiet");
  m.recordRefused("news", 2);
  m.recordRefused("news", 1);
  const f = parseExposition(m.render());
  assert.deepEqual(f.get("courier_build_info")!.samples, [
    { name: "courier_build_info", labels: { version: "9.8.7" }, value: 1 },
  ]);
  assert.equal(sampleValue(f, "process_cpu_seconds_total"), 12.5);
  assert.equal(sampleValue(f, "process_open_fds"), 17);
  assert.equal(sampleValue(f, "process_max_fds"), 1024);
  assert.equal(sampleValue(f, "courier_feed_entries_refused_total", { feed: "news" }), 3);
  assert.equal(sampleValue(f, "courier_feed_entries_refused_total", { feed: "quiet" }), 0);
  // Added before any run: its last success is 0 (never), its runs are all at zero.
  assert.equal(sampleValue(f, "courier_feed_last_success_timestamp_seconds", { feed: "quiet" }), 0);
  assert.equal(sampleValue(f, "courier_feed_runs_total", { feed: "quiet", outcome: "failed" }), 0);
  assert.throws(() => m.recordRefused("news", -1), RangeError);
});

Deno.test("metrics: the default process reading is this process's", () => {
  const f = parseExposition(new ForwardMetrics().render());
  assert.equal(sampleValue(f, "courier_build_info", { version: VERSION }), 1);
  const cpu = sampleValue(f, "process_cpu_seconds_total")!;
  assert.ok(cpu > 0 && cpu < 3600, String(cpu));
  if (Deno.build.os === "linux") {
    const open = sampleValue(f, "process_open_fds")!;
    assert.ok(open >= 3 && open <= sampleValue(f, "process_max_fds")!, String(open));
  }
});
