/**
 * Who fetches next: the rule that keeps a slow server from holding every other feed back (first
 * come first served, feeds on a server past the fetch limit took every slot). The rule:
 * - no origin (scheme, host, port of a feed's first URL) holds more than half the slots
 *   (rounded up): the other half stay for other servers' feeds, even while they are idle;
 * - origins that were slow (their last fetch held its slot for half the fetch timeout or
 *   longer) share that same half between them;
 * - origins take turns (one feed each, round robin), and each origin's feeds go in config
 *   order; an origin that may not start is passed over, and keeps its turn;
 * - an origin whose last fetch was fast may also take the slots beyond its half while no other
 *   origin has feeds waiting, or a config whose feeds are all on one server fetches at half its
 *   concurrency. An origin not yet heard from, or slow, never does: a server that turns slow
 *   can hold the borrowed slots once, for one fetch timeout, before it is known slow.
 * So a slow server costs its own feeds (they wait longer), never the others'.
 */
import type { Clock } from "../time/clock.ts";

export interface SlotsInUse {
  concurrency: number;
  /** Slots in use now. */
  inUse: number;
  /** Slots in use, by origin. */
  byOrigin: ReadonlyMap<string, number>;
  /** Origins whose last fetch was slow. */
  slow: ReadonlySet<string>;
  /** Origins whose last fetch was fast. */
  fast: ReadonlySet<string>;
}

/** The most slots one origin, and all slow origins together, may hold. */
export function shareOf(concurrency: number): number {
  return Math.max(1, Math.ceil(concurrency / 2));
}

/** Whether a feed of `origin` may take a slot now. */
export function mayStart(origin: string, s: SlotsInUse): boolean {
  if (s.inUse >= s.concurrency) return false;
  const share = shareOf(s.concurrency);
  if ((s.byOrigin.get(origin) ?? 0) >= share) return false;
  if (!s.slow.has(origin)) return true;
  let slowInUse = 0;
  for (const [o, n] of s.byOrigin) if (s.slow.has(o)) slowInUse += n;
  return slowInUse < share;
}

/**
 * The origin whose feed gets the next slot: the first of `origins` (those with feeds waiting,
 * in their turn order) that may start, or null.
 */
export function nextOrigin(origins: Iterable<string>, s: SlotsInUse): string | null {
  if (s.inUse >= s.concurrency) return null;
  let only: string | null = null;
  let count = 0;
  for (const origin of origins) {
    if (mayStart(origin, s)) return origin;
    only = origin;
    count++;
  }
  // Alone, a fast origin takes the slots no one else is waiting for.
  return count === 1 && only !== null && s.fast.has(only) ? only : null;
}

/**
 * The server a feed is fetched from, for the rule: its first URL's scheme and authority (host
 * and port, without user info), lower-cased; the URL itself when it has none. A key read off the
 * text, not `new URL(url).origin`: `forward` asks for every feed at every tick, and a URL parse
 * per feed was most of the rule's cost. A port written out where it is the default
 * (`http://host:80`) makes a key of its own, so such a feed gets a share of its own.
 */
export function feedOrigin(url: string | undefined): string {
  if (url === undefined) return "";
  const m = SERVER.exec(url);
  return m === null ? url : (m[1] + m[2]).toLowerCase();
}

const SERVER = /^([a-z][a-z0-9+.-]*:\/\/)(?:[^@/?#]*@)?([^/?#]*)/i;

/** Told of the slot a waiting feed was given. */
type Start = (slot: Slot) => void;

/** One origin's waiting feeds, first come first served. */
class Queue {
  readonly #items: Start[] = [];
  #head = 0;

  push(start: Start): void {
    this.#items.push(start);
  }

  shift(): Start | undefined {
    const start = this.#items[this.#head];
    this.#items[this.#head++] = undefined!;
    // Compacted now and then: a queue of thousands is not copied at every take.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    return start;
  }

  get length(): number {
    return this.#items.length - this.#head;
  }
}

/** A slot taken; `release` once, when the fetch (the feed's plan) is over. */
export interface Slot {
  release(): void;
}

/** What a feed run fetches under: the slot its caller took for it. */
export interface SlotRunner {
  run<T>(task: () => Promise<T>, onStart?: () => void): Promise<T>;
}

/** A runner over a slot already taken: runs the task, then releases the slot. */
export function heldSlot(slot: Slot): SlotRunner {
  return {
    async run(task, onStart) {
      onStart?.();
      try {
        return await task();
      } finally {
        slot.release();
      }
    },
  };
}

/**
 * The fetch slots of a forwarder, shared by all its runs, handed out by the rule above.
 * `slowAfterMs` is half the fetch timeout.
 */
export class FetchSlots implements SlotsInUse {
  inUse = 0;
  readonly byOrigin = new Map<string, number>();
  readonly slow = new Set<string>();
  readonly fast = new Set<string>();
  /** Waiting feeds by origin; the map's order is the origins' turn order. */
  readonly #queues = new Map<string, Queue>();
  #waitingCount = 0;

  constructor(
    readonly concurrency: number,
    private readonly clock: Clock,
    private readonly slowAfterMs: number,
  ) {
    this.concurrency = Math.max(1, concurrency);
  }

  /** Feeds waiting for a slot. */
  get waiting(): number {
    return this.#waitingCount;
  }

  /**
   * Calls `start` with a slot for `origin` once the rule lets it have one. Until then the feed
   * is this callback in a queue and nothing more: a tick of thousands of feeds need not hold
   * a suspended run for each of them.
   */
  take(origin: string, start: (slot: Slot) => void): void {
    let queue = this.#queues.get(origin);
    if (queue === undefined) this.#queues.set(origin, queue = new Queue());
    queue.push(start);
    this.#waitingCount++;
    this.#dispatch();
  }

  #slot(origin: string): Slot {
    const startedAt = this.clock.monotonic();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#release(origin, this.clock.monotonic() - startedAt);
      },
    };
  }

  #release(origin: string, heldMs: number): void {
    if (heldMs >= this.slowAfterMs) {
      this.slow.add(origin);
      this.fast.delete(origin);
    } else {
      this.slow.delete(origin);
      this.fast.add(origin);
    }
    this.inUse--;
    const n = (this.byOrigin.get(origin) ?? 1) - 1;
    if (n === 0) this.byOrigin.delete(origin);
    else this.byOrigin.set(origin, n);
    this.#dispatch();
  }

  #dispatch(): void {
    for (;;) {
      const origin = nextOrigin(this.#queues.keys(), this);
      if (origin === null) return;
      const queue = this.#queues.get(origin)!;
      const start = queue.shift()!;
      // The origin goes to the end of the turn order: origins take turns, one feed each.
      this.#queues.delete(origin);
      if (queue.length > 0) this.#queues.set(origin, queue);
      this.#waitingCount--;
      this.inUse++;
      this.byOrigin.set(origin, (this.byOrigin.get(origin) ?? 0) + 1);
      start(this.#slot(origin));
    }
  }
}
