/**
 * How the pool shares its workers between clients (a client: the peer address the front saw,
 * see ../http/client_tag.ts). Pure decisions over the queue and the workers each client holds,
 * so tests drive them without processes or waiting.
 *
 * One client's requests queue behind each other, not in front of other clients': a free
 * worker goes to the waiting client holding the fewest workers; a client holding two more than
 * a waiting one hands one over at once; and when the queue is full, the client with the most
 * waiting loses its newest request to make room, not a client that waits for less.
 */

/** What the choices look at in a waiting request. */
export interface Waiting {
  client: string;
  /** Its query text ran past the time limit before. */
  suspect: boolean;
  download: boolean;
}

/** Workers running a request, by client. */
export type Held = ReadonlyMap<string, number>;

/**
 * Whether a waiter may take a worker: a spare serves neither remembered runaways nor
 * downloads; a regular one serves a download only while another is left for the rest.
 */
export function servable(q: Waiting, spare: boolean, downloadRoom: boolean): boolean {
  if (spare) return !q.suspect && !q.download;
  return !q.download || downloadRoom;
}

/**
 * The index of the waiter a free worker serves, -1 for none: of those it may serve, the one
 * whose client holds the fewest workers, a fresh request before a remembered runaway, then the
 * oldest (queue order).
 */
export function pickWaiter(
  queue: readonly Waiting[],
  held: Held,
  spare: boolean,
  downloadRoom: boolean,
): number {
  let best = -1;
  let rank = Infinity;
  for (let i = 0; i < queue.length; i++) {
    const q = queue[i];
    if (!servable(q, spare, downloadRoom)) continue;
    const r = (held.get(q.client) ?? 0) * 2 + (q.suspect ? 1 : 0);
    if (r < rank) {
      best = i;
      rank = r;
    }
  }
  return best;
}

/**
 * The client that must hand a worker over now, or null: the one holding the most, when it
 * holds at least two more than a client with a waiter that the freed worker (a spare, or a
 * regular one) may serve. Two, so a hand-over never just swaps which client is ahead.
 */
export function owing(
  queue: readonly Waiting[],
  held: Held,
  spare: boolean,
  downloadRoom: boolean,
): string | null {
  let top: string | null = null;
  let most = 0;
  for (const [client, n] of held) {
    if (n > most) {
      top = client;
      most = n;
    }
  }
  if (most < 2) return null;
  for (const q of queue) {
    if (servable(q, spare, downloadRoom) && (held.get(q.client) ?? 0) + 2 <= most) return top;
  }
  return null;
}

/**
 * With the queue full, the index of the waiter refused so that `client` may queue: the newest
 * of the client with the most waiting, if that is more than `client` has waiting; else -1 (the
 * newcomer is the one refused).
 */
export function evictee(queue: readonly Waiting[], client: string): number {
  const waiting = new Map<string, number>();
  for (const q of queue) waiting.set(q.client, (waiting.get(q.client) ?? 0) + 1);
  let top: string | null = null;
  let most = waiting.get(client) ?? 0;
  for (const [c, n] of waiting) {
    if (n > most) {
      top = c;
      most = n;
    }
  }
  if (top === null) return -1;
  for (let i = queue.length - 1; i >= 0; i--) if (queue[i].client === top) return i;
  return -1;
}
