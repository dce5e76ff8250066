/** The scheduler's health, decided from its tick times: what `/healthz` answers and the loop reports. */

export interface SchedulerHealth {
  ok: boolean;
  /** How late the expected tick is (0 when it is not late). */
  overdueMs: number;
}

/**
 * Whether the scheduler is alive: stalled when the tick it planned for `expectedNextTickAt` has
 * not happened `slackMs` after that time. No expected tick (nothing scheduled) is healthy; a
 * tick at or after the expected time means the expectation is stale, not the loop; a clock
 * stepped backward makes nothing overdue.
 */
export function schedulerHealth(
  lastTickAt: Date | null,
  expectedNextTickAt: Date | null,
  now: Date,
  slackMs: number,
): SchedulerHealth {
  if (expectedNextTickAt === null) return { ok: true, overdueMs: 0 };
  const expected = expectedNextTickAt.getTime();
  if (lastTickAt !== null && lastTickAt.getTime() >= expected) return { ok: true, overdueMs: 0 };
  const overdueMs = Math.max(0, now.getTime() - expected);
  return { ok: overdueMs <= slackMs, overdueMs };
}

/** What the loop tells `/healthz`. */
export interface HealthSnapshot {
  ok: boolean;
  /** Feeds scheduled. */
  feeds: number;
  lastTick: Date | null;
}
