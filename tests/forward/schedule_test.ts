import assert from "node:assert/strict";
import { Schedule, type ScheduledFeed } from "../../src/forward/schedule.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { drive, dstRuns } from "../support/schedule_driver.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => new Date(text);

/** Every `stepMs` from `from` (inclusive) to `to` (exclusive). */
function every(from: string, to: string, stepMs: number): string[] {
  const out: string[] = [];
  for (let t = Date.parse(from); t < Date.parse(to); t += stepMs) out.push(iso(t));
  return out;
}

Deno.test("schedule: a year of ticks fires every feed at each of its slots, once, and only then", async () => {
  const start = Date.UTC(2026, 0, 1);
  const clock = new ManualClock(start);
  const schedule = new Schedule("UTC");
  const feeds: ScheduledFeed[] = [
    { name: "hourly", cron: "0 * * * *" },
    { name: "quarter", cron: "*/15 * * * *" },
    { name: "daily", cron: "30 2 * * *" },
    { name: "mondays", cron: "0 9 * * 1" },
  ];
  // Each succeeded a second ago: nothing to catch up.
  const last = new Map(feeds.map((f) => [f.name, new Date(start - 1000)]));
  schedule.update(feeds, last, new Date(start));
  let ticks = 0;
  const runs = await drive(schedule, clock, 365 * DAY, () => ticks++);
  const end = "2027-01-01T00:00:00.000Z";
  // Their slot at the start is now, later than their last success: they catch up at once.
  assert.deepEqual(runs.get("hourly"), every("2026-01-01T00:00:00Z", end, HOUR).concat(end));
  assert.deepEqual(
    runs.get("quarter"),
    every("2026-01-01T00:00:00Z", end, 15 * 60_000).concat(end),
  );
  assert.deepEqual(runs.get("daily"), every("2026-01-01T02:30:00Z", end, DAY));
  // 2026-01-05 is the first Monday.
  assert.deepEqual(runs.get("mondays"), every("2026-01-05T09:00:00Z", end, 7 * DAY));
  // One tick per distinct due time, never a tick with nothing due (plus the first look).
  assert.equal(ticks, 365 * 24 * 4 + 1);
});

Deno.test("schedule: catch-up runs a feed that missed its latest slot or never succeeded, only those", () => {
  const schedule = new Schedule("UTC");
  const now = at("2026-05-01T10:20:00Z");
  schedule.update(
    [
      { name: "missed", cron: "0 * * * *" },
      { name: "ran", cron: "0 * * * *" },
      { name: "never", cron: "0 0 1 1 *" },
      { name: "exactly", cron: "20 10 * * *" },
    ],
    new Map([
      ["missed", at("2026-05-01T09:59:00Z")], // before the 10:00 slot
      ["ran", at("2026-05-01T10:00:05Z")], // after it: already ran in this period
      ["exactly", at("2026-04-30T10:20:30Z")], // its slot is now, and it has not run for it
    ]),
    now,
  );
  assert.deepEqual(schedule.due(now), [
    { feed: "missed", slot: at("2026-05-01T10:00:00Z") },
    { feed: "never", slot: at("2026-01-01T00:00:00Z") },
    { feed: "exactly", slot: at("2026-05-01T10:20:00Z") },
  ]);
  assert.equal(schedule.nextFor("ran")?.toISOString(), "2026-05-01T11:00:00.000Z");
  assert.equal(schedule.nextFor("missed")?.toISOString(), "2026-05-01T11:00:00.000Z");
  assert.equal(schedule.nextFor("never")?.toISOString(), "2027-01-01T00:00:00.000Z");
  assert.deepEqual(schedule.due(now), [], "due once");
});

Deno.test("schedule: after a forward jump a due feed runs once; a backward step never repeats a slot", async () => {
  const clock = new ManualClock(Date.parse("2026-05-01T09:59:00Z"));
  const schedule = new Schedule("UTC");
  schedule.update(
    [{ name: "hourly", cron: "0 * * * *" }, { name: "daily", cron: "0 12 * * *" }],
    new Map([["hourly", at("2026-05-01T09:00:01Z")], ["daily", at("2026-04-30T12:00:01Z")]]),
    new Date(clock.now()),
  );
  const runs: string[] = [];
  const look = () => {
    for (const d of schedule.due(new Date(clock.now()))) {
      runs.push(`${d.feed}@${iso(clock.now())} for ${d.slot?.toISOString()}`);
    }
  };
  look();
  assert.deepEqual(runs, []);

  // Suspended for 5 h 20 min: the timer set for 10:00 fires on resume, when it is 15:20.
  clock.jump(5 * HOUR + 20 * 60_000);
  await clock.advance(60_000);
  look();
  assert.deepEqual(runs, [
    "hourly@2026-05-01T15:20:00.000Z for 2026-05-01T15:00:00.000Z",
    "daily@2026-05-01T15:20:00.000Z for 2026-05-01T12:00:00.000Z",
  ]);
  assert.equal(schedule.nextAt()?.toISOString(), "2026-05-01T16:00:00.000Z");

  // Stepped back 40 minutes (to 14:40), then time runs on to 16:00: the 15:00 slot, already
  // run, is not run again; 16:00 runs once.
  runs.length = 0;
  clock.jump(-40 * 60_000);
  look();
  for (let i = 0; i < 80; i++) {
    await clock.advance(60_000);
    look();
  }
  assert.equal(iso(clock.now()), "2026-05-01T16:00:00.000Z");
  assert.deepEqual(runs, ["hourly@2026-05-01T16:00:00.000Z for 2026-05-01T16:00:00.000Z"]);
});

Deno.test("schedule: a reload keeps unchanged feeds' times and catches up added and changed ones", () => {
  const schedule = new Schedule("UTC");
  const t0 = at("2026-05-01T10:30:00Z");
  const last = new Map([
    ["a", at("2026-05-01T10:00:10Z")],
    ["b", at("2026-05-01T10:00:10Z")],
    ["c", at("2026-05-01T10:00:10Z")],
  ]);
  schedule.update([{ name: "a", cron: "0 * * * *" }, { name: "b", cron: "0 * * * *" }], last, t0);
  assert.deepEqual(schedule.due(t0), []);
  const t1 = at("2026-05-01T10:45:00Z");
  const diff = schedule.update(
    [
      { name: "c", cron: "0 * * * *" }, // added, ran at 10:00: waits for 11:00
      { name: "a", cron: "0 * * * *" }, // unchanged
      { name: "d", cron: "*/5 * * * *" }, // added, never succeeded: at once
      // b removed
    ],
    last,
    t1,
  );
  assert.deepEqual(diff, { added: ["c", "d"], changed: [], removed: ["b"] });
  assert.deepEqual(schedule.names, ["c", "a", "d"]);
  assert.deepEqual(schedule.due(t1).map((d) => d.feed), ["d"]);

  const t2 = at("2026-05-01T10:50:00Z");
  // a now runs every 10 minutes: its 10:50 slot is later than its last success.
  const changed = schedule.update(
    [{ name: "c", cron: "0 * * * *" }, { name: "a", cron: "*/10 * * * *" }],
    last,
    t2,
  );
  assert.deepEqual(changed, { added: [], changed: ["a"], removed: ["d"] });
  assert.deepEqual(schedule.due(t2).map((d) => d.feed), ["a"]);
  assert.equal(schedule.nextAt()?.toISOString(), "2026-05-01T11:00:00.000Z");
});

const DST_FEEDS: ScheduledFeed[] = [
  { name: "fixed_0230", cron: "30 2 * * *" },
  { name: "fixed_0130", cron: "30 1 * * *" },
  { name: "half_hourly", cron: "*/30 1-3 * * *" },
];

// New York, 2026: clocks go 02:00 EST → 03:00 EDT on 8 March, 02:00 EDT → 01:00 EST on 1 November.
const SPRING = {
  fixed_0230: ["2026-03-08T07:00:00.000Z"], // in the gap: at its end (03:00 EDT), once
  fixed_0130: ["2026-03-08T06:30:00.000Z"],
  half_hourly: [
    "2026-03-08T06:00:00.000Z", // 01:00 EST
    "2026-03-08T06:30:00.000Z", // 01:30 EST; 02:00 and 02:30 do not exist: skipped
    "2026-03-08T07:00:00.000Z", // 03:00 EDT
    "2026-03-08T07:30:00.000Z", // 03:30 EDT
  ],
};
const FALL = {
  fixed_0230: ["2026-11-01T07:30:00.000Z"],
  fixed_0130: ["2026-11-01T05:30:00.000Z"], // 01:30 comes twice: runs at the first only
  half_hourly: [
    "2026-11-01T05:00:00.000Z", // 01:00 EDT
    "2026-11-01T05:30:00.000Z", // 01:30 EDT
    "2026-11-01T06:00:00.000Z", // 01:00 EST (an interval job runs both passes)
    "2026-11-01T06:30:00.000Z", // 01:30 EST
    "2026-11-01T07:00:00.000Z", // 02:00 EST
    "2026-11-01T07:30:00.000Z",
    "2026-11-01T08:00:00.000Z",
    "2026-11-01T08:30:00.000Z",
  ],
};

Deno.test("schedule: daylight saving in New York, as croner documents it", async () => {
  assert.deepEqual(
    await dstRuns("America/New_York", "2026-03-08T04:00:00Z", DST_FEEDS),
    SPRING,
  );
  assert.deepEqual(await dstRuns("America/New_York", "2026-11-01T04:00:00Z", DST_FEEDS), FALL);
});

Deno.test("schedule: without a timezone option the zone comes from TZ", async () => {
  const driver = new URL("../support/schedule_driver.ts", import.meta.url).href;
  const script = `
    import { dstRuns } from ${JSON.stringify(driver)};
    const feeds = ${JSON.stringify(DST_FEEDS)};
    const spring = await dstRuns(undefined, "2026-03-08T04:00:00Z", feeds);
    const fall = await dstRuns(undefined, "2026-11-01T04:00:00Z", feeds);
    console.log(JSON.stringify({ spring, fall }));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    env: { TZ: "America/New_York" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const result = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.deepEqual(result, { spring: SPRING, fall: FALL });
});

Deno.test("schedule: a year in New York: hourly every real hour, daily once each local day", async () => {
  const start = Date.parse("2026-01-01T05:00:00Z"); // midnight EST
  const clock = new ManualClock(start);
  const schedule = new Schedule("America/New_York");
  const feeds = [{ name: "hourly", cron: "0 * * * *" }, { name: "daily", cron: "30 2 * * *" }];
  schedule.update(feeds, new Map(feeds.map((f) => [f.name, new Date(start)])), new Date(start));
  const runs = await drive(schedule, clock, 365 * DAY - 1);
  // The skipped 02:00 in March and the second 01:00 in November even out: one run an hour.
  assert.deepEqual(
    runs.get("hourly"),
    every("2026-01-01T06:00:00Z", "2027-01-01T05:00:00Z", HOUR),
  );
  const localDays = runs.get("daily")!.map((t) =>
    new Date(t).toLocaleDateString("en-CA", { timeZone: "America/New_York" })
  );
  assert.equal(localDays.length, 365);
  assert.equal(new Set(localDays).size, 365);
  assert.ok(runs.get("daily")!.includes("2026-03-08T07:00:00.000Z"), "03:00 EDT after the gap");
});

Deno.test("schedule: feeds sharing an expression keep their own times (steady, catching up, after a reload)", async () => {
  const start = Date.parse("2026-05-01T10:05:00Z");
  const clock = new ManualClock(start);
  const schedule = new Schedule("UTC");
  const feeds = ["ran", "never", "missed"].map((name) => ({ name, cron: "*/10 * * * *" }));
  schedule.update(
    feeds,
    new Map([["ran", at("2026-05-01T10:01:00Z")], ["missed", at("2026-05-01T09:55:00Z")]]),
    new Date(start),
  );
  assert.equal(schedule.nextFor("ran")?.toISOString(), "2026-05-01T10:10:00.000Z");
  assert.equal(schedule.nextFor("never")?.getTime(), start);
  assert.equal(schedule.nextFor("missed")?.getTime(), start);
  const first = schedule.due(new Date(start));
  assert.deepEqual(first.map((d) => [d.feed, d.slot?.toISOString()]), [
    ["never", "2026-05-01T10:00:00.000Z"],
    ["missed", "2026-05-01T10:00:00.000Z"],
  ]);
  // Each due feed gets a slot of its own to keep.
  assert.notEqual(first[0].slot, first[1].slot);
  // A feed added by a reload between slots, with the same expression, catches up alone.
  clock.jump(7 * 60_000); // 10:12
  schedule.update(
    [...feeds, { name: "added", cron: "*/10 * * * *" }],
    new Map(),
    at("2026-05-01T10:12:00Z"),
  );
  assert.equal(schedule.nextFor("added")?.toISOString(), "2026-05-01T10:12:00.000Z");
  assert.equal(schedule.nextFor("ran")?.toISOString(), "2026-05-01T10:10:00.000Z");
  const runs = await drive(schedule, clock, 20 * 60_000);
  const times = (...xs: string[]) => xs.map((x) => `2026-05-01T${x}:00.000Z`);
  // The wall clock stepped over 10:10 between ticks: the three are due once for it, at 10:12.
  for (const name of ["ran", "never", "missed", "added"]) {
    assert.deepEqual(runs.get(name), times("10:12", "10:20", "10:30"), name);
  }
  assert.equal(schedule.nextFor("added")?.toISOString(), "2026-05-01T10:40:00.000Z");
  assert.equal(schedule.nextFor("gone"), null);
});
