import type { Clock, TimerId } from "../../src/time/clock.ts";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock the test moves: `advance` moves wall and monotonic time together and runs each timer
 * that falls due, in order, letting the promises it settles run before the next one; `jump`
 * steps the wall clock only (NTP, a suspend, a user), as the real one can.
 */
export class ManualClock implements Clock {
  #wall: number;
  #mono = 0;
  #seq = 0;
  readonly #timers = new Map<number, Timer>();

  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.#wall = typeof start === "number" ? start : start.getTime();
  }

  now(): number {
    return this.#wall;
  }

  monotonic(): number {
    return this.#mono;
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#mono + Math.max(0, ms), seq: id, fn });
    return id;
  }

  clearTimeout(id: TimerId): void {
    this.#timers.delete(id as number);
  }

  /** Timers not yet run. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, running every timer due on the way at its own time. */
  async advance(ms: number): Promise<void> {
    const end = this.#mono + ms;
    for (;;) {
      await settle();
      let next: [number, Timer] | undefined;
      for (const entry of this.#timers) {
        const [, t] = entry;
        if (t.at > end) continue;
        if (!next || t.at < next[1].at || (t.at === next[1].at && t.seq < next[1].seq)) {
          next = entry;
        }
      }
      if (!next) break;
      const [id, timer] = next;
      this.#timers.delete(id);
      this.#wall += timer.at - this.#mono;
      this.#mono = timer.at;
      timer.fn();
    }
    this.#wall += end - this.#mono;
    this.#mono = end;
    await settle();
  }

  /** Steps the wall clock by `ms` (negative: backwards); monotonic time and timers stay. */
  jump(ms: number): void {
    this.#wall += ms;
  }
}

/** Lets the promise callbacks already queued (and those they queue) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
