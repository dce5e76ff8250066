import { Schedule, type ScheduledFeed } from "../../src/forward/schedule.ts";
import { ManualClock } from "./manual_clock.ts";

/**
 * Runs the schedule as the loop will: a timer on the clock for the next due time; at each, the
 * due feeds "run" (their times are recorded). Returns each feed's run times.
 */
export async function drive(
  schedule: Schedule,
  clock: ManualClock,
  forMs: number,
  onTick?: () => void,
): Promise<Map<string, string[]>> {
  const runs = new Map<string, string[]>(schedule.names.map((n) => [n, []]));
  const end = clock.monotonic() + forMs;
  const tick = () => {
    for (const due of schedule.due(new Date(clock.now()))) {
      runs.get(due.feed)!.push(new Date(clock.now()).toISOString());
    }
    onTick?.();
    const next = schedule.nextAt();
    if (next === null) return;
    const wait = Math.max(0, next.getTime() - clock.now());
    if (clock.monotonic() + wait <= end) clock.setTimeout(tick, wait);
  };
  tick();
  await clock.advance(end - clock.monotonic());
  return runs;
}

/** Each feed's run times over the day after `startUtc` (a day of a daylight-saving change). */
export async function dstRuns(
  timezone: string | undefined,
  startUtc: string,
  feeds: ScheduledFeed[],
) {
  const clock = new ManualClock(Date.parse(startUtc));
  const schedule = new Schedule(timezone);
  schedule.update(
    feeds,
    new Map(feeds.map((f) => [f.name, new Date(clock.now())])),
    new Date(clock.now()),
  );
  return Object.fromEntries(await drive(schedule, clock, 24 * 3_600_000));
}
