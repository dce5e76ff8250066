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
