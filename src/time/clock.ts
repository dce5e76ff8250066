/** Time as every part of a run sees it, so a test can drive months of schedule in milliseconds. */

/** A timer handle; only the clock that made it knows what it is. */
export type TimerId = unknown;

export interface Clock {
  /** Wall-clock time, ms since the epoch: what schedules and stored times use. It may jump. */
  now(): number;
  /** Monotonic ms for durations and deadlines; never jumps. */
  monotonic(): number;
  /** Calls `fn` once `ms` of monotonic time have passed. */
  setTimeout(fn: () => void, ms: number): TimerId;
  clearTimeout(id: TimerId): void;
}

/** The process's clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/** Waits `ms` on `clock`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
