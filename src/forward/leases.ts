/**
 * Several `forward` processes on one database (db_url) share the work by leasing channels: a
 * channel's feeds are run only by the process holding its lease, so the channel's config order
 * and its 20-a-minute limit stay one process's business. A lease is a row (holder, expiry) taken
 * and renewed by conditional writes (src/store/leases.ts); a process that stops cleanly hands
 * its leases back, one that dies loses them at expiry, and another takes them and runs the
 * channel's feeds at once, catching up.
 *
 * The rule for splitting: a process takes at most its share, ceil(channels / live processes),
 * and hands back (between runs, never during one) what it holds above that, so a second
 * process gets half the channels within a renewal or two.
 *
 * Timing. The database's clock decides: a lease expires `ttlMs` after the database wrote it,
 * on the database's clock (src/store/leases.ts), so the machines' own clocks may differ by any
 * amount. Here, a lease is renewed every ttlMs / 4 and trusted (fencing) only until
 * ttlMs * 3 / 4 after the moment the renewal that confirmed it was *sent*, on this process's
 * monotonic clock: the database wrote the expiry after that moment, so trust ends at least a
 * quarter of the TTL before anyone else may take the channel, however long the answer took, a
 * pause of the process or a partition. Every send asks (`until`) right before its request goes
 * out and bounds the request by it (src/messenger/bot_api.ts); a process whose renewals fail
 * stops sending when its trust ends, and one that could not record a send (`distrust`) stops
 * at once, until a renewal reaches the database again.
 */
import type { Clock, TimerId } from "../time/clock.ts";
import { type Logger, messageOf } from "../log/logger.ts";
import type { LeaseClaim, LeaseHolding } from "../store/leases.ts";

export const DEFAULT_LEASE_TTL_MS = 60_000;

export interface LeaseStore {
  claimLeases(claim: LeaseClaim): Promise<LeaseHolding>;
  releaseLeases(holder: string, channels: readonly string[], all: boolean): Promise<void>;
}

/** What one protocol step asks for (pure): see the module's rule. */
export function planClaim(input: {
  /** The channels of the config, in config order. */
  wanted: readonly string[];
  /** The channels held and still trusted. */
  held: ReadonlySet<string>;
  /** Live processes at the last step (1 when none was seen). */
  holders: number;
  /** Channels with a run in progress: never handed back now. */
  busy: (channel: string) => boolean;
  /** `once`: take every free channel, whatever the share. */
  takeAll?: boolean;
}): Pick<LeaseClaim, "release" | "renew" | "take" | "maxTake" | "shareOf"> {
  const wanted = new Set(input.wanted);
  const share = input.takeAll
    ? input.wanted.length
    : Math.ceil(input.wanted.length / Math.max(1, input.holders));
  const release = [...input.held].filter((c) => !wanted.has(c) && !input.busy(c));
  const renew = input.wanted.filter((c) => input.held.has(c));
  // Above the share: hand back from the end of the config order, idle channels only.
  for (let i = renew.length - 1; i >= 0 && renew.length > share; i--) {
    if (input.busy(renew[i])) continue;
    release.push(renew[i]);
    renew.splice(i, 1);
  }
  return {
    release,
    renew,
    take: input.wanted.filter((c) => !input.held.has(c)),
    // The store recounts the live processes when it takes (shareOf); this bound only keeps
    // what the previous count allows.
    maxTake: input.takeAll ? input.wanted.length : Math.max(0, input.wanted.length - renew.length),
    shareOf: input.takeAll ? undefined : input.wanted.length,
  };
}

export interface LeasesOptions {
  store: LeaseStore;
  clock: Clock;
  logger: Logger;
  /** This process's name in the database: host, pid and a random part. */
  holder: string;
  ttlMs: number;
  takeAll?: boolean;
}

/** A process's leases: what it holds, the renewal timer, the hand-back at a clean stop. */
export class Leases {
  readonly holder: string;
  readonly #options: LeasesOptions;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  /** Channel → monotonic time until which the lease is trusted. */
  readonly #held = new Map<string, number>();
  /** Set by `distrust`: nothing is trusted until the next step reaches the database. */
  #distrusted = false;
  /** Channel → how many times this process has taken it: one holding of it, its tenure. */
  readonly #tenures = new Map<string, number>();
  #wanted: string[] = [];
  #holders = 1;
  #timer: TimerId | undefined;
  #refreshing: Promise<void> | null = null;
  #stopped = false;
  #failing = false;
  /** Leases lost to expiry or to another process, over the process's life. */
  lost = 0;
  /** Told the channels newly taken (at start, or from a process that died or handed back). */
  onTaken: (channels: string[]) => void = () => {};
  /** Channels with a run in progress (the loop's); never handed back. */
  busy: (channel: string) => boolean = () => false;
  /** Told the count of live processes after each step. */
  onHolders: (count: number) => void = () => {};

  constructor(options: LeasesOptions) {
    this.#options = options;
    this.holder = options.holder;
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs;
  }

  /** The channels to hold, in config order (a reload changes them). */
  setChannels(channels: Iterable<string>): void {
    this.#wanted = [...new Set(channels)];
  }

  /** Whether this process may run and send for `channel` now. */
  holds(channel: string): boolean {
    return this.#clock.monotonic() < this.until(channel);
  }

  /**
   * Until when (the clock's monotonic time) this process may send to `channel`: a request that
   * cannot be over by then is not started. -Infinity when it does not hold the channel.
   */
  until(channel: string): number {
    if (this.#distrusted) return -Infinity;
    return this.#held.get(channel) ?? -Infinity;
  }

  /**
   * `until` for the lease as held now, for a run that starts now: once the lease is lost, the
   * run's sends stay refused even if the channel is taken back meanwhile, since what the run
   * planned to send may have been sent by the process that held it in between.
   */
  tenure(channel: string): () => number {
    const tenure = this.#tenures.get(channel);
    return () => this.#tenures.get(channel) === tenure ? this.until(channel) : -Infinity;
  }

  /**
   * Stops every send until the next renewal reaches the database: a send the state could not
   * record (the database unreachable or slow) is one another process may repeat, and the next
   * would be another.
   */
  distrust(): void {
    this.#distrusted = true;
  }

  get held(): number {
    const now = this.#clock.monotonic();
    let n = 0;
    for (const until of this.#held.values()) if (now < until) n++;
    return n;
  }

  /** Renews every ttlMs / 4 from now on (the first step is `refresh`'s caller's). */
  start(): void {
    const every = Math.max(1, Math.floor(this.#ttlMs / 4));
    const tick = () => {
      this.#timer = this.#clock.setTimeout(async () => {
        await this.refresh();
        if (!this.#stopped) tick();
      }, every);
    };
    tick();
  }

  /**
   * One protocol step: hand back, renew, take, count. A failure (the database unreachable) is
   * logged once per streak and changes nothing: leases then run out here by time alone.
   */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#step().finally(() => this.#refreshing = null);
    return this.#refreshing;
  }

  async #step(): Promise<void> {
    if (this.#stopped) return;
    const monoNow = this.#clock.monotonic();
    const trusted = new Set([...this.#held].filter(([, until]) => monoNow < until).map(([c]) => c));
    const expired = [...this.#held.keys()].filter((c) => !trusted.has(c));
    for (const channel of expired) this.#held.delete(channel);
    this.#lose(expired, "lease ran out before it could be renewed");
    const plan = planClaim({
      wanted: this.#wanted,
      held: trusted,
      holders: this.#holders,
      busy: this.busy,
      takeAll: this.#options.takeAll,
    });
    let holding: LeaseHolding;
    // Taken as the request leaves: the database's expiry is at least ttlMs after this.
    const sent = this.#clock.monotonic();
    try {
      holding = await this.#options.store.claimLeases({
        holder: this.holder,
        ttlMs: this.#ttlMs,
        ...plan,
      });
    } catch (error) {
      if (!this.#failing) {
        this.#options.logger.error("cannot renew the channels' leases", {
          error: messageOf(error),
        });
      }
      this.#failing = true;
      return;
    }
    if (this.#failing) this.#options.logger.info("leases renewed again");
    this.#failing = false;
    if (this.#stopped) return;
    this.#distrusted = false;
    this.#holders = holding.holders;
    this.onHolders(holding.holders);
    const until = sent + (this.#ttlMs * 3) / 4;
    const nowHeld = new Set(holding.held);
    for (const channel of plan.release) this.#held.delete(channel);
    this.#lose(plan.renew.filter((c) => !nowHeld.has(c)), "another process holds the lease");
    const taken = holding.held.filter((c) => !this.#held.has(c));
    for (const channel of taken) this.#tenures.set(channel, (this.#tenures.get(channel) ?? 0) + 1);
    this.#held.clear();
    for (const channel of holding.held) this.#held.set(channel, until);
    if (plan.release.length > 0) {
      this.#options.logger.info("leases handed back to share the channels", {
        channels: plan.release.join(","),
        processes: holding.holders,
      });
    }
    if (taken.length > 0) this.onTaken(taken);
  }

  #lose(channels: string[], why: string): void {
    if (channels.length === 0) return;
    this.lost += channels.length;
    this.#options.logger.warn(`leases lost: ${why}`, { channels: channels.join(",") });
  }

  /** Stops renewing and hands every lease back, so another process takes them at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    await this.#refreshing;
    this.#held.clear();
    try {
      await this.#options.store.releaseLeases(this.holder, [], true);
    } catch (error) {
      this.#options.logger.warn("cannot hand the leases back; they run out by themselves", {
        error: messageOf(error),
      });
    }
  }
}

/** A holder name that says where it runs: `host:pid:random`. */
export function holderName(hostname: string, pid: number): string {
  return `${hostname}:${pid}:${crypto.randomUUID().slice(0, 6)}`;
}
