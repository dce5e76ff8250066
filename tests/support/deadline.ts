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
  /** The first wait that failed by the deadline, as its error says it. */
  failure: string | null = null;

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
        this.failure ??= `${what}: did not happen within the test's bound of ${this.ms / 1000} s`;
        throw new Error(this.failure);
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

/** Time the body has after its deadline to fail by name and clean up (close servers, kill workers). */
const CLEANUP_MS = 30_000;

/**
 * A Deno.test body with a deadline: the body awaits its kills, timeouts and cancellations
 * through `deadline.within`, which fails naming what did not happen and lets the body's own
 * cleanup run. Anything else that hangs, cleanup included, fails the test a little later.
 */
export function bounded(
  ms: number,
  body: (deadline: Deadline) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const deadline = new Deadline(ms);
    const end = new Deadline(ms + CLEANUP_MS);
    try {
      await end.within("the test's end (an unbounded wait or its cleanup hung)", body(deadline));
    } catch (error) {
      // A named wait failed, then the cleanup hung (a server waiting on the request that never
      // ended): the named failure is the news.
      if (deadline.failure !== null && end.failure !== null) {
        throw new Error(`${deadline.failure}; then the test's cleanup hung`);
      }
      throw error;
    } finally {
      deadline.clear();
      end.clear();
    }
  };
}
