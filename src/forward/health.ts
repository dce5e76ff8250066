/**
 * Whether the scheduler is alive, from its tick times (ms on one clock): stalled when the tick
 * it planned for `expectedNextTick` has not happened `slackMs` after that time. No expected tick
 * (nothing scheduled) is healthy; a tick at or after the expected time means the expectation is
 * stale, not the loop; a clock stepped backward makes nothing overdue.
 */
export function schedulerHealthy(
  lastTick: number | null,
  expectedNextTick: number | null,
  now: number,
  slackMs: number,
): boolean {
  if (expectedNextTick === null) return true;
  if (lastTick !== null && lastTick >= expectedNextTick) return true;
  return now - expectedNextTick <= slackMs;
}

/** What the loop tells `/healthz`. */
export interface HealthSnapshot {
  ok: boolean;
  /** Feeds scheduled. */
  feeds: number;
  lastTick: Date | null;
}
