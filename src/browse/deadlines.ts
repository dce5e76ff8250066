/**
 * Many deadlines behind one timer. Every request has a time limit, and a `setTimeout` and its
 * `clearTimeout` per request were ~8% of the server's CPU on point lookups (each is a Node-style
 * Timeout object and two calls into the runtime). Here a deadline is a list entry: adding one
 * at the end and removing one are a few pointer writes, and the one timer is armed for the
 * earliest. Deadlines mostly arrive in order (arrival time plus the same limit), so an insertion
 * looks back from the end.
 *
 * The timer is left armed when its entry goes (it wakes once, finds nothing due and re-arms for
 * the new earliest, or stays idle), so a steady stream of requests costs no timer calls at all;
 * `close()` disarms it.
 */
export interface Deadline {
  /** performance.now() at which `fire` runs. */
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
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer wakes; Infinity while none is armed. */
  #armedAt = Infinity;

  /** Runs `fire` once at `at` (performance.now() time) unless cancelled first. */
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
  }

  /** Deadlines waiting (tests). */
  get size(): number {
    let n = 0;
    for (let e = this.#head; e !== null; e = e.next) n++;
    return n;
  }

  /** Disarms the timer; deadlines added later arm it again. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Infinity;
  }

  #arm(): void {
    clearTimeout(this.#timer);
    const head = this.#head;
    if (head === null) {
      this.#timer = undefined;
      this.#armedAt = Infinity;
      return;
    }
    this.#armedAt = head.at;
    this.#timer = setTimeout(() => this.#wake(), Math.max(0, head.at - performance.now()));
  }

  #wake(): void {
    this.#timer = undefined;
    this.#armedAt = Infinity;
    // A timer may wake a little before its time as performance.now() sees it.
    const now = performance.now() + 1;
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
