// Named for taking turns: feeds sharing a channel deliver in turn (ChannelTurns), and at most
// `concurrency` feeds take theirs at once (Semaphore).

/** One feed's place in the delivery order of its channel. */
export interface Turn {
  /** Resolves when every earlier feed of the channel has finished delivering. */
  ready: Promise<void>;
  /**
   * Hands the channel to the next feed; call exactly once, whatever happened. Called before
   * `ready` (a feed with nothing to send need not wait), it hands over once the earlier feeds
   * have finished, so the order still holds.
   */
  done(): void;
}

/**
 * Orders delivery per channel: feeds sharing a channel deliver one after the other, in the
 * order their turns were taken (config order), so the channel's messages come in a stable order
 * and at most one message per channel is ever in flight. Feeds of different channels deliver
 * in parallel.
 */
export class ChannelTurns {
  readonly #tails = new Map<string, Promise<void>>();

  take(channel: string): Turn {
    const previous = this.#tails.get(channel) ?? Promise.resolve();
    let resolve!: () => void;
    const finished = new Promise<void>((r) => (resolve = r));
    this.#tails.set(channel, finished);
    return { ready: previous, done: () => void previous.then(resolve) };
  }
}

/** Runs at most `limit` tasks at a time, in the order they ask. */
export class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#free = Math.max(1, limit);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
