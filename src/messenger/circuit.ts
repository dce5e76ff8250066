/**
 * A chat's circuit: after a send to a chat used up its retries on 5xx answers, timeouts or
 * network errors (the messenger is down), the chat's next sends fail at once instead of each
 * paying the whole retry ladder again. In an outage every send paid every attempt while the
 * channel's other feeds waited their turn (bench/NOTES.md); now the first feed of a channel
 * pays the ladder, the others fail in no time and keep their entries for their next run.
 *
 * After `coolMs` (doubling with each failed probe, up to `maxCoolMs`) one send is let through
 * as a probe, with a single attempt: success closes the circuit, failure opens it again.
 * Pure bookkeeping on monotonic times the caller passes in, one entry per failing chat.
 */
export interface CircuitOptions {
  /** How long the first failure holds a chat's sends back (default 30 s). */
  coolMs?: number;
  /** The longest hold, reached by doubling (default 5 min). */
  maxCoolMs?: number;
}

interface Open {
  /** Sends fail at once before this time; at or after it, one probe goes. */
  until: number;
  coolMs: number;
  /** What the failing send met, for the errors of those that fail at once. */
  reason: string;
}

export type Admission =
  /** The circuit is closed: a send with the full retry ladder. */
  | { kind: "send" }
  /** A probe after a hold: one attempt. */
  | { kind: "probe" }
  /** Fail at once: the chat's last send found the messenger down. */
  | { kind: "held"; until: number; reason: string };

export class Circuit {
  readonly #open = new Map<string, Open>();
  readonly #coolMs: number;
  readonly #maxCoolMs: number;

  constructor(options: CircuitOptions = {}) {
    this.#coolMs = options.coolMs ?? 30_000;
    this.#maxCoolMs = options.maxCoolMs ?? 5 * 60_000;
  }

  /** What a send to `chat` at `now` may do. */
  admit(chat: string, now: number): Admission {
    const open = this.#open.get(chat);
    if (open === undefined) return { kind: "send" };
    if (now >= open.until) return { kind: "probe" };
    return { kind: "held", until: open.until, reason: open.reason };
  }

  /** A send to `chat` found the messenger down (retries used up, or a probe failed). */
  trip(chat: string, now: number, reason: string): void {
    const open = this.#open.get(chat);
    const coolMs = open === undefined ? this.#coolMs : Math.min(open.coolMs * 2, this.#maxCoolMs);
    this.#open.set(chat, { until: now + coolMs, coolMs, reason });
  }

  /** The messenger answered a send to `chat` (whatever it said): the circuit closes. */
  reset(chat: string): void {
    this.#open.delete(chat);
  }
}
