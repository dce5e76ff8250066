/**
 * A deadline of a test's own. The browse tests wait for a worker to be killed (at a time
 * limit, a stall, a cancellation); if a regression means that never happens, the wait would
 * hang the whole suite. Bounded, the test fails by name within its bound instead, saying what
 * did not happen. The bounds are generous: a hang guard, not a timing check.
 */

/** The bound of one test: every wait passed to `within` ends by it. */
export class Deadline {
  readonly #expired: Promise<never>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #onExpire: () => void = () => {};

  constructor(readonly ms: number) {
    this.#expired = new Promise<never>((_, reject) => {
      this.#onExpire = () => reject(new DeadlineError(ms));
    });
    // Never unhandled: each `within` handles it through its own race.
    this.#expired.catch(() => {});
    this.#timer = setTimeout(() => this.#onExpire(), ms);
  }

  /** What `waited` settles to, or a failure naming `what` once the deadline has passed. */
  async within<T>(what: string, waited: T): Promise<Awaited<T>> {
    try {
      return await Promise.race([waited, this.#expired]);
    } catch (error) {
      if (error instanceof DeadlineError) {
        throw new Error(`${what}: did not happen within the test's bound of ${this.ms / 1000} s`);
      }
      throw error;
    }
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

class DeadlineError extends Error {
  constructor(ms: number) {
    super(`deadline of ${ms} ms passed`);
  }
}

/**
 * A Deno.test body with a deadline: the body awaits its kills, timeouts and cancellations
 * through `deadline.within`, which names what did not happen; anything else that hangs,
 * cleanup included, fails the test at the same bound.
 */
export function bounded(
  ms: number,
  body: (deadline: Deadline) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const deadline = new Deadline(ms);
    try {
      await deadline.within("the test's end", body(deadline));
    } finally {
      deadline.clear();
    }
  };
}
