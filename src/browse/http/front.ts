/**
 * The browser's TCP front: the accept loop that Deno.serve keeps to itself, owned here so the
 * server bounds its own connections. Deno.serve has no header timeout (a client sending half a
 * header, a byte every few seconds, was kept forever) and ends the process when accept() fails
 * for want of file descriptors; node:http's headersTimeout is not honoured by Deno either.
 *
 * So the public address is a plain TCP listener. A connection must finish its first request's
 * headers within HEADER_TIMEOUT_MS, else it is dropped; then its bytes are relayed, both ways
 * and with back-pressure, to Deno.serve on a Unix socket in a private directory. Connections
 * are capped below the process's descriptor limit (each costs three descriptors: the client's,
 * the relay's and Deno.serve's). At the cap, room is made by dropping the oldest idle kept-alive
 * connection, else the oldest still sending a request's headers; a connection whose request is
 * being answered is never dropped (a client without a token opening hundreds of connections cut
 * off others' queries in flight): with none to drop, the new connection gets 503 with
 * Retry-After. Which is which the front follows from the bytes it relays (http_framing.ts).
 * So it relays HTTP/1.1 alone: a connection opening with HTTP/2's preface (prior knowledge),
 * which Deno.serve would take, or switched to another protocol by a 101 answer, is closed.
 *
 * Two things make that hold in a real process. Accepting is a loop that, while the kernel's
 * backlog holds connections, never lets the event loop read anything: a burst of 400
 * connections was accepted whole before the request sent first was read, so at the cap that
 * connection looked silent and went first. The loop now lets the event loop run every few
 * accepts, and a connection is taken for silent only once reads have had their turns since it
 * was accepted. And a connection's place is held until its last descriptor is closed,
 * Deno.serve's included (Deno.serve closes its end after it sees the front's): counting a
 * dropped connection gone at once let Deno.serve's accept() fail for want of descriptors,
 * which ends the process. An accept() of the front that fails all the same waits a moment and
 * goes on: the server never exits for it.
 */

import { copy } from "../../net/unix_relay.ts";
import { MessageScanner } from "./http_framing.ts";
import { type ClientTag, ClientTags } from "./client_tag.ts";

/** Where Deno.serve listens: a Unix socket, or a loopback port where there are none (Windows). */
type Backend = Deno.UnixAddr | Deno.NetAddr;

export interface FrontOptions {
  hostname: string;
  port: number;
  /** Where Deno.serve listens (see setBackend). */
  backend?: Backend;
  /** The most open connections; default from the descriptor limit. */
  maxConnections?: number;
  /** The largest first-request header accepted, bytes. */
  maxHeaderBytes?: number;
}

/** How long a new connection may take to send its first request's headers. */
const HEADER_TIMEOUT_MS = 5_000;
const MAX_HEADER_BYTES = 64 * 1024;
/** Descriptors kept for everything else: worker pipes, the listener, files, the runtime. */
const RESERVED_FDS = 64;
/**
 * Relay buffers: requests are small; answers are relayed in large reads, since each read and
 * write is a system call.
 */
const REQUEST_BUFFER = 16 * 1024;
const ANSWER_BUFFER = 128 * 1024;
const HEADERS_END = new Uint8Array([13, 10, 13, 10]);
/**
 * How HTTP/2 with prior knowledge opens. Its frames cannot be followed nor its requests tagged;
 * the connection is closed with nothing sent, which no HTTP/2 client can misread.
 */
const HTTP2_PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\n");
const TOO_LARGE = new TextEncoder().encode(
  "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
);
const FULL_BODY = JSON.stringify({
  error: "the server has as many connections as it may, each with a request being answered: " +
    "retry later",
});
/** The answer to a connection there is no room for (written before its request is read). */
const FULL = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n" +
    "Content-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n" +
    `X-Content-Type-Options: nosniff\r\nContent-Length: ${FULL_BODY.length}\r\n\r\n${FULL_BODY}`,
);

/** The soft limit on open descriptors (Linux), or null where it cannot be read. */
export function descriptorLimit(
  read = () => Deno.readTextFileSync("/proc/self/limits"),
): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(read());
    if (!m) return null;
    return m[1] === "unlimited" ? 1 << 20 : Number(m[1]);
  } catch {
    return null;
  }
}

/** How many connections fit under a descriptor limit, three descriptors each. */
export function connectionCap(limit: number | null): number {
  return Math.max(16, Math.floor(((limit ?? 1024) - RESERVED_FDS) / 3));
}

/** Where `needle` ends in `hay`, searching from `from`; -1 when absent. */
function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = Math.max(0, from); i <= hay.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i + needle.length;
  }
  return -1;
}

interface Client {
  conn: Deno.TcpConn;
  /** Tells the app its requests' peer (client_tag.ts). */
  tag: ClientTag;
  upstream?: Deno.Conn;
  /** Still sending its first request's headers. */
  opening: boolean;
  /** Bytes of its first request's head read so far. */
  seen: number;
  /** The accept loop's turn when it was accepted (see Front.#pause). */
  turn: number;
  closed: boolean;
  /** Once relayed: its requests and answers as they pass. */
  requests?: MessageScanner;
  /** Requests whose head is in and whose answer has not ended, by method. */
  pending: string[];
  /** Settles when its place is free: every descriptor of it closed. */
  gone: Promise<void>;
}

function closeQuietly(conn: Deno.Conn | undefined): void {
  try {
    conn?.close();
  } catch { /* closed already */ }
}

/**
 * Closes the client's side. Deno.serve's side is only told (its input ends): it closes its end
 * when it sees that, and the relay's read of it then ends, which frees the connection's place.
 */
function closeClient(c: Client): void {
  if (c.closed) return;
  c.closed = true;
  c.tag.close();
  closeQuietly(c.conn);
  c.upstream?.closeWrite().catch(() => closeQuietly(c.upstream));
}

/** Why a connection was dropped; "protocol": it spoke one other than HTTP/1.1 (see HTTP2_PREFACE). */
type DropReason = "header-timeout" | "cap" | "too-large" | "protocol";

/** Events for tests: a connection dropped, and why. */
export type FrontEvent =
  | { type: "dropped"; reason: DropReason }
  | { type: "accept-failed" }
  | { type: "refused" };

/** Accepts in a row before the event loop is let run (reads, Deno.serve, the relays). */
const ACCEPTS_PER_TURN = 16;
/** Turns after its accept by which a connection's bytes already sent have been read. */
const READ_TURNS = 2;
/** The longest the accept loop waits for a dropped connection's descriptors to close. */
const GONE_WAIT_MS = 1_000;

export class Front {
  readonly #listener: Deno.TcpListener;
  readonly #clients = new Set<Client>();
  readonly #max: number;
  readonly #maxHeader: number;
  #backend: Backend | undefined;
  #closed = false;
  /** Times the accept loop has let the event loop run. */
  #turn = 0;
  readonly #observers = new Set<(e: FrontEvent) => void>();
  readonly done: Promise<void>;
  /** Whom each relayed request comes from. */
  readonly tags = new ClientTags();

  /** Binds the public address; throws as Deno.listen does when it cannot. */
  constructor(options: FrontOptions) {
    this.#listener = Deno.listen({ hostname: options.hostname, port: options.port });
    this.#backend = options.backend;
    this.#max = options.maxConnections ?? connectionCap(descriptorLimit());
    this.#maxHeader = options.maxHeaderBytes ?? MAX_HEADER_BYTES;
    this.done = this.#accept();
  }

  /** Where connections are relayed to; set once Deno.serve listens there. */
  setBackend(backend: Backend): void {
    this.#backend = backend;
  }

  get port(): number {
    return this.#listener.addr.port;
  }

  /** Open connections, those whose descriptors are not all closed yet included. */
  get connections(): number {
    return this.#clients.size;
  }

  observe(fn: (e: FrontEvent) => void): () => void {
    this.#observers.add(fn);
    return () => this.#observers.delete(fn);
  }

  #emit(e: FrontEvent): void {
    for (const fn of this.#observers) fn(e);
  }

  #drop(c: Client, reason: DropReason): void {
    if (c.closed) return;
    closeClient(c);
    this.#emit({ type: "dropped", reason });
  }

  /**
   * Lets the event loop run: while connections wait in the backlog, accept() resolves at once
   * and nothing else would (timers let the runtime poll for I/O; a zero delay did not always).
   */
  async #pause(): Promise<void> {
    await new Promise((r) => setTimeout(r, 1));
    this.#turn++;
  }

  /**
   * The connection to drop for room: the oldest idle kept-alive one, else the oldest still
   * sending its first request's headers. One that has sent nothing counts only once reads have
   * had their turns since it was accepted (its request may be in, not read yet). `wait` is set
   * when such a one was passed over.
   */
  #victim(): { victim?: Client; wait: boolean } {
    let sending: Client | undefined;
    let wait = false;
    for (const c of this.#clients) {
      // A connection with a request being answered is never dropped.
      if (c.closed || c.pending.length > 0) continue;
      if (!c.opening && c.requests?.between) return { victim: c, wait };
      if (!c.opening) continue;
      if (c.seen === 0 && this.#turn - c.turn < READ_TURNS) wait = true;
      else sending ??= c;
    }
    return { victim: sending, wait };
  }

  /** Makes room for one more connection; false when every one has a request being answered. */
  async #makeRoom(): Promise<boolean> {
    while (this.#clients.size >= this.#max) {
      const { victim, wait } = this.#victim();
      if (victim === undefined) {
        if (!wait) return false;
        await this.#pause();
        continue;
      }
      this.#drop(victim, "cap");
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        victim.gone,
        new Promise((r) => (timer = setTimeout(r, GONE_WAIT_MS))),
      ]);
      clearTimeout(timer);
    }
    return true;
  }

  async #accept(): Promise<void> {
    let inRow = 0;
    while (!this.#closed) {
      if (++inRow >= ACCEPTS_PER_TURN) {
        inRow = 0;
        await this.#pause();
      }
      let conn: Deno.TcpConn;
      try {
        conn = await this.#listener.accept();
      } catch (error) {
        if (this.#closed || error instanceof Deno.errors.BadResource) return;
        // Out of descriptors (or another passing failure): free one, wait a moment, go on.
        this.#emit({ type: "accept-failed" });
        const { victim } = this.#victim();
        if (victim !== undefined) this.#drop(victim, "cap");
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      // Answers leave in pieces through the relay: without it, Nagle's algorithm and the
      // client's delayed ACK held a page's last piece for 40 ms.
      conn.setNoDelay(true);
      if (this.#clients.size >= this.#max && !(await this.#makeRoom())) {
        this.#emit({ type: "refused" });
        conn.write(FULL).catch(() => {}).finally(() => closeQuietly(conn));
        continue;
      }
      let gone: () => void = () => {};
      const client: Client = {
        conn,
        tag: this.tags.open(conn.remoteAddr.hostname),
        opening: true,
        seen: 0,
        turn: this.#turn,
        closed: false,
        pending: [],
        gone: new Promise<void>((r) => (gone = r)),
      };
      this.#clients.add(client);
      this.#serve(client).catch(() => {}).finally(() => {
        closeClient(client);
        closeQuietly(client.upstream);
        this.#clients.delete(client);
        gone();
      });
    }
  }

  async #serve(c: Client): Promise<void> {
    const timer = setTimeout(() => this.#drop(c, "header-timeout"), HEADER_TIMEOUT_MS);
    let head = new Uint8Array(4096);
    try {
      for (;;) {
        if (c.seen === head.length) {
          if (c.seen >= this.#maxHeader) {
            await c.conn.write(TOO_LARGE).catch(() => {});
            return this.#drop(c, "too-large");
          }
          const next = new Uint8Array(Math.min(head.length * 2, this.#maxHeader));
          next.set(head);
          head = next;
        }
        const n = await c.conn.read(head.subarray(c.seen));
        if (n === null) return;
        c.seen += n;
        if (indexOfBytes(head.subarray(0, c.seen), HEADERS_END, c.seen - n - 3) >= 0) break;
      }
    } finally {
      clearTimeout(timer);
    }
    if (c.closed) return;
    const size = c.seen;
    if (HTTP2_PREFACE.every((b, i) => i < size && head[i] === b)) return this.#drop(c, "protocol");
    const lineEnds: number[] = [];
    const requests = new MessageScanner("request", {
      line: (text, at) => c.tag.follows(text) && lineEnds.push(at),
      head: (text) => c.pending.push(text.slice(0, text.indexOf(" "))),
      end: () => {},
    });
    // Each request is passed on tagged with its connection.
    const relayed = (bytes: Uint8Array) => {
      requests.feed(bytes);
      const out = c.tag.insert(bytes, lineEnds);
      lineEnds.length = 0;
      return out;
    };
    const answers = new MessageScanner("response", {
      head: () => {},
      end: () => void c.pending.shift(),
      // The app has no route that switches (WebSocket, h2c); were one added, the bytes after
      // the 101 could not be followed: the connection is closed at the 101, not passed on.
      switched: () => this.#drop(c, "protocol"),
    }, () => c.pending[0] === "HEAD");
    // Its first request is being answered from here on.
    const first = relayed(head.subarray(0, size));
    c.requests = requests;
    c.opening = false;
    const backend = this.#backend;
    if (backend === undefined) return;
    try {
      c.upstream = "path" in backend
        ? await Deno.connect({ transport: "unix", path: backend.path })
        : await Deno.connect({ hostname: backend.hostname, port: backend.port });
    } catch {
      // Out of descriptors after all: its request gets an answer, not a silent close.
      await c.conn.write(FULL).catch(() => {});
      return;
    }
    if (c.closed) return;
    let off = 0;
    while (off < first.length) off += await c.upstream.write(first.subarray(off));
    const up = c.upstream;
    // The client's end of sending is passed on (a reset too: Deno.serve's input ends); the
    // server's end of answering ends it all. Past a client gone mid-answer, the relay stops.
    copy(c.conn, up, REQUEST_BUFFER, relayed).catch(() => closeClient(c));
    await copy(up, c.conn, ANSWER_BUFFER, (b) => answers.feed(b)).catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    try {
      this.#listener.close();
    } catch { /* closed already */ }
    for (const c of this.#clients) {
      closeClient(c);
      closeQuietly(c.upstream);
    }
    this.#clients.clear();
    await this.done;
  }
}
