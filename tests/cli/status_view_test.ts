import assert from "node:assert/strict";
import {
  type FeedStatus,
  formatClock,
  formatDuration,
  formatRelative,
  renderStatusJson,
  renderStatusTable,
} from "../../src/cli/status_view.ts";

const NOW = new Date("2026-11-23T14:53:20Z");
const t = (iso: string) => new Date(iso);

const FEEDS: FeedStatus[] = [
  {
    name: "blog",
    cron: "*/5 * * * *",
    nextRun: t("2026-11-23T14:55:00Z"),
    lastSuccess: t("2026-11-23T14:50:00Z"),
    lastRun: {
      startedAt: t("2026-11-23T14:50:00Z"),
      finishedAt: t("2026-11-23T14:50:02Z"),
      outcome: "ok",
      error: null,
    },
    sentTotal: 1234,
    sent24h: 12,
  },
  {
    name: "news.daily",
    cron: "0 7 * * *",
    nextRun: t("2026-11-24T07:00:00Z"),
    lastSuccess: t("2026-11-20T07:00:03Z"),
    lastRun: {
      startedAt: t("2026-11-23T07:00:00Z"),
      finishedAt: t("2026-11-23T07:00:30Z"),
      outcome: "failed",
      error: "fetch https://news.example/feed.xml: HTTP 503\n\x1b[2Jretry later, the server said",
    },
    sentTotal: 0,
    sent24h: 0,
  },
  {
    name: "new-one",
    cron: "0 * * * *",
    nextRun: null,
    lastSuccess: null,
    lastRun: null,
    sentTotal: 0,
    sent24h: 0,
  },
];

const PLAIN = [
  "FEED        CRON         NEXT RUN                    LAST SUCCESS                LAST RUN  SENT  SENT 24H",
  "blog        */5 * * * *  14:55 (in 1 min)            14:50 (3 min ago)           ok        1234        12",
  "news.daily  0 7 * * *    2026-11-24 07:00 (in 16 h)  2026-11-20 07:00 (3 d ago)  failed       0         0",
  "  error: fetch https://news.example/feed.xml: HTTP 503 [2Jretry later, the server said",
  "new-one     0 * * * *    -                           never                       -            0         0",
  "",
].join("\n");

// deno-lint-ignore no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

Deno.test("status table, not a terminal: aligned, no colour, the whole error on one line", () => {
  const text = renderStatusTable(FEEDS, { now: NOW, width: null, color: false, timeZone: "UTC" });
  assert.equal(text, PLAIN);
  assert.ok(!text.includes("\x1b"), "no escape sequence, not even one from the error text");
});

Deno.test("status table on a terminal: outcome coloured, columns still aligned, error cut", () => {
  const width = 60;
  const text = renderStatusTable(FEEDS, { now: NOW, width, color: true, timeZone: "UTC" });
  const lines = text.trimEnd().split("\n");
  assert.ok(lines[1].includes("\x1b[32mok\x1b[0m"), "ok in green");
  assert.ok(lines[2].includes("\x1b[31mfailed\x1b[0m"), "failed in red");
  assert.ok(!lines[4].includes("\x1b[3"), "a feed that never ran has no coloured outcome");
  const error = stripAnsi(lines[3]);
  assert.equal([...error].length, width);
  assert.ok(error.endsWith("…"));
  assert.ok(error.startsWith("  error: fetch https://news.example/feed.xml"));
  // Without the colour codes it is the plain table but for the cut error line.
  const plain = PLAIN.split("\n");
  plain[3] = error;
  assert.equal(stripAnsi(text), plain.join("\n"));
});

Deno.test("status table: times in the given zone; a short error is not cut", () => {
  const feeds: FeedStatus[] = [{
    ...FEEDS[1],
    lastRun: { ...FEEDS[1].lastRun!, error: "HTTP 500" },
  }];
  const text = renderStatusTable(feeds, {
    now: NOW,
    width: 80,
    color: false,
    timeZone: "Europe/Berlin",
  });
  assert.match(text, /2026-11-24 08:00 \(in 16 h\)/);
  assert.match(text, /2026-11-20 08:00 \(3 d ago\)/);
  assert.match(text, /\n {2}error: HTTP 500\n$/);
});

Deno.test("status table: an overdue next run, no feeds", () => {
  const feeds: FeedStatus[] = [{ ...FEEDS[0], nextRun: t("2026-11-23T14:50:00Z") }];
  const lines = renderStatusTable(feeds, { now: NOW, width: 80, color: false, timeZone: "UTC" })
    .split("\n");
  assert.match(lines[1], /^blog +\*\/5 \* \* \* \* +14:50 \(3 min ago\) /);
  assert.equal(
    renderStatusTable([], { now: NOW, width: 80, color: true }),
    "no feeds in the config\n",
  );
});

Deno.test("status --json: one array, ISO 8601 times, age_seconds, stable keys", () => {
  const doc = JSON.parse(renderStatusJson(FEEDS, NOW));
  assert.deepEqual(doc, [
    {
      name: "blog",
      cron: "*/5 * * * *",
      next_run: "2026-11-23T14:55:00.000Z",
      last_success: { time: "2026-11-23T14:50:00.000Z", age_seconds: 200 },
      last_run: {
        started_at: "2026-11-23T14:50:00.000Z",
        finished_at: "2026-11-23T14:50:02.000Z",
        outcome: "ok",
        error: null,
        age_seconds: 198,
      },
      sent_total: 1234,
      sent_24h: 12,
      refused_total: 0,
      refused_latest: [],
      filtered_total: 0,
    },
    {
      name: "news.daily",
      cron: "0 7 * * *",
      next_run: "2026-11-24T07:00:00.000Z",
      last_success: { time: "2026-11-20T07:00:03.000Z", age_seconds: 287597 },
      last_run: {
        started_at: "2026-11-23T07:00:00.000Z",
        finished_at: "2026-11-23T07:00:30.000Z",
        outcome: "failed",
        error: "fetch https://news.example/feed.xml: HTTP 503\n\x1b[2Jretry later, the server said",
        age_seconds: 28370,
      },
      sent_total: 0,
      sent_24h: 0,
      refused_total: 0,
      refused_latest: [],
      filtered_total: 0,
    },
    {
      name: "new-one",
      cron: "0 * * * *",
      next_run: null,
      last_success: null,
      last_run: null,
      sent_total: 0,
      sent_24h: 0,
      refused_total: 0,
      refused_latest: [],
      filtered_total: 0,
    },
  ]);
  // Key order is part of the contract for people who read it with their eyes.
  assert.deepEqual(Object.keys(doc[0]), [
    "name",
    "cron",
    "next_run",
    "last_success",
    "last_run",
    "sent_total",
    "sent_24h",
    "refused_total",
    "refused_latest",
    "filtered_total",
  ]);
  assert.equal(renderStatusJson([], NOW), "[]\n");
});

Deno.test("status --json: a run's age from its finish, and a time after now (clock stepped back)", () => {
  const [feed] = JSON.parse(renderStatusJson([{
    ...FEEDS[0],
    lastSuccess: t("2026-11-23T15:00:00Z"),
    lastRun: {
      startedAt: t("2026-11-23T14:53:00Z"),
      finishedAt: t("2026-11-23T14:53:05Z"),
      outcome: "ok",
      error: null,
    },
  }], NOW));
  assert.deepEqual(feed.last_success, { time: "2026-11-23T15:00:00.000Z", age_seconds: 0 });
  assert.deepEqual(feed.last_run, {
    started_at: "2026-11-23T14:53:00.000Z",
    finished_at: "2026-11-23T14:53:05.000Z",
    outcome: "ok",
    error: null,
    age_seconds: 15,
  });
});

Deno.test("status: durations, relative times and clock times", () => {
  assert.deepEqual(
    [0, 59, 60, 3599, 3600, 47 * 3600 + 3599, 48 * 3600, -5].map(formatDuration),
    ["0 s", "59 s", "1 min", "59 min", "1 h", "47 h", "2 d", "0 s"],
  );
  assert.equal(formatRelative(t("2026-11-23T14:56:20Z"), NOW), "in 3 min");
  assert.equal(formatRelative(t("2026-11-23T14:50:20Z"), NOW), "3 min ago");
  assert.equal(formatRelative(NOW, NOW), "0 s ago");
  assert.equal(formatClock(t("2026-11-23T00:05:00Z"), NOW, "UTC"), "00:05");
  assert.equal(formatClock(t("2026-11-22T23:59:00Z"), NOW, "UTC"), "2026-11-22 23:59");
  // The day is the zone's: 23:30 UTC is already the next day in Berlin.
  assert.equal(
    formatClock(t("2026-11-23T23:30:00Z"), NOW, "Europe/Berlin"),
    "2026-11-24 00:30",
  );
  // Summer time in the zone: UTC+2.
  assert.equal(
    formatClock(t("2026-07-01T10:00:00Z"), NOW, "Europe/Berlin"),
    "2026-07-01 12:00",
  );
});

Deno.test("status: refused entries under their feed (count, latest with title and link) and in --json", () => {
  const refused = [
    {
      id: "urn:x:9",
      title: "Why <details> \x1b[31mmatter",
      link: "https://example.org/9",
      at: t("2026-11-23T14:40:00Z"),
    },
    { id: "urn:x:7", title: "", link: null, at: t("2026-11-20T08:00:00Z") },
  ];
  const feed: FeedStatus = { ...FEEDS[0], refusedTotal: 7, refused };
  const table = renderStatusTable([feed, FEEDS[2]], {
    now: NOW,
    width: null,
    color: false,
    timeZone: "UTC",
  });
  assert.deepEqual(table.split("\n").slice(1), [
    "blog     */5 * * * *  14:55 (in 1 min)  14:50 (3 min ago)  ok        1234        12",
    "  refused: 7 entries the messenger would not take, never posted; latest:",
    "    14:40  Why <details> [31mmatter  https://example.org/9",
    "    2026-11-20 08:00  urn:x:7",
    "    and 5 more",
    "new-one  0 * * * *    -                 never              -            0         0",
    "",
  ]);
  // One refused entry: the singular, no "more".
  const one = renderStatusTable([{ ...FEEDS[0], refusedTotal: 1, refused: [refused[1]] }], {
    now: NOW,
    width: 40,
    color: false,
    timeZone: "UTC",
  });
  assert.match(one, /^ {2}refused: 1 entry the messenger would …$/m);
  assert.doesNotMatch(one, /more/);

  const [doc] = JSON.parse(renderStatusJson([feed], NOW));
  assert.equal(doc.refused_total, 7);
  assert.deepEqual(doc.refused_latest, [
    {
      id: "urn:x:9",
      title: "Why <details> \x1b[31mmatter",
      link: "https://example.org/9",
      refused_at: "2026-11-23T14:40:00.000Z",
    },
    { id: "urn:x:7", title: "", link: null, refused_at: "2026-11-20T08:00:00.000Z" },
  ]);
});
