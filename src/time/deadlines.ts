/**
 * Many deadlines behind one timer, for the fetches of a run and the requests of the browser.
 * A `setTimeout` and its `clearTimeout` per request were a measurable share of both
 * (bench/NOTES.md): each is a Node-style Timeout object and two calls into the runtime. Here a
 * deadline is a list entry: adding one at the end and removing one are a few pointer writes,
 * and the one timer is armed for the earliest. Deadlines mostly arrive in order
 * (start time plus the same limit), so an insertion looks back from the end.
 *
 * What happens when the last deadline goes is the caller's choice:
 * - by default the timer is cleared, so it never holds the process (or a test) open;
 * - with `keepArmed` it is left to wake once, find nothing due and re-arm for the new earliest
 *   (or stay idle), so a server with one request at a time costs no timer calls at all;
 *   `close()` disarms it.
 */
import { type Clock, realClock, type TimerId } from "./clock.ts";

export interface Deadline {
  /** The clock's monotonic time at which `fire` runs. */
  readonly at: number;
}

interface Entry extends Deadline {
  fire: () => void;
  prev: Entry | null;
  next: Entry | null;
  live: boolean;
}

export class Deadlines {
  #head: Entry | null = null;
  #tail: Entry | null = null;
  #timer: TimerId | undefined;
  /** When the armed timer wakes; Infinity while none is armed. */
  #armedAt = Infinity;
  readonly #keepArmed: boolean;

  /** `keepArmed`: see above. */
  constructor(readonly clock: Clock = realClock, options: { keepArmed?: boolean } = {}) {
    this.#keepArmed = options.keepArmed ?? false;
  }

  /** The deadline of something starting now and given `ms`. */
  deadlineIn(ms: number): number {
    return this.clock.monotonic() + ms;
  }

  /** Runs `fire` once at `at` (the clock's monotonic time) unless cancelled first. */
  add(at: number, fire: () => void): Deadline {
    const e: Entry = { at, fire, prev: null, next: null, live: true };
    let after = this.#tail;
    while (after !== null && after.at > at) after = after.prev;
    e.prev = after;
    e.next = after === null ? this.#head : after.next;
    if (e.next === null) this.#tail = e;
    else e.next.prev = e;
    if (after === null) this.#head = e;
    else after.next = e;
    if (at < this.#armedAt) this.#arm();
    return e;
  }

  /** Stops a deadline from firing; harmless if it fired or was cancelled already. */
  cancel(deadline: Deadline): void {
    const e = deadline as Entry;
    if (!e.live) return;
    e.live = false;
    if (e.prev === null) this.#head = e.next;
    else e.prev.next = e.next;
    if (e.next === null) this.#tail = e.prev;
    else e.next.prev = e.prev;
    e.prev = e.next = null;
    if (this.#head === null && !this.#keepArmed) this.close();
  }

  /** Deadlines waiting. */
  get size(): number {
    let n = 0;
    for (let e = this.#head; e !== null; e = e.next) n++;
    return n;
  }

  /** Disarms the timer; deadlines added later arm it again. */
  close(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Infinity;
  }

  #arm(): void {
    const head = this.#head;
    if (head === null) return this.close();
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#armedAt = head.at;
    this.#timer = this.clock.setTimeout(
      () => this.#wake(),
      Math.max(0, head.at - this.clock.monotonic()),
    );
  }

  #wake(): void {
    this.#timer = undefined;
    this.#armedAt = Infinity;
    // A timer that wakes a little early (as performance.now() sees it) finds nothing due and
    // is armed again for the rest: deadlines fire at their time, never before.
    const now = this.clock.monotonic();
    try {
      for (let e = this.#head; e !== null && e.at <= now; e = this.#head) {
        this.cancel(e);
        e.fire();
      }
    } finally {
      // Armed again even if a deadline's function threw, so the later ones still fire.
      if (this.#head !== null && this.#timer === undefined) this.#arm();
    }
  }
}
