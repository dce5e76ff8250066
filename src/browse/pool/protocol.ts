/**
 * Frames between the server and a query worker process, over the worker's stdin/stdout:
 * a 4-byte big-endian length, a 1-byte kind, then the payload. Requests and heads are JSON;
 * body chunks are raw bytes, so the server passes result bytes through without parsing them.
 */

export const FRAME_JSON = 1;
export const FRAME_BODY = 2;
export const FRAME_END = 3;

export interface Frame {
  kind: number;
  payload: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeFrame(kind: number, payload: Uint8Array | string): Uint8Array {
  const bytes = typeof payload === "string" ? encoder.encode(payload) : payload;
  const out = new Uint8Array(5 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length + 1);
  out[4] = kind;
  out.set(bytes, 5);
  return out;
}

export function frameJson<T>(frame: Frame): T {
  return JSON.parse(decoder.decode(frame.payload)) as T;
}

/** A frame longer than the reader accepts. */
export class FrameTooLargeError extends Error {
  override name = "FrameTooLargeError";
  constructor(readonly size: number) {
    super(`a frame of ${size} bytes is larger than allowed`);
  }
}

/**
 * Reads whole frames from a byte stream into one reused buffer (BYOB): a default reader
 * allocates a fresh chunk per read, more garbage for V8 to collect (bounded either way: reading
 * 200 MB from a child raised RSS by 13 MB like this, by 30 MB with a default reader).
 * Payloads are copied out, one JS allocation per frame.
 */
export class FrameReader {
  #reader: ReadableStreamBYOBReader;
  #buf = new Uint8Array(256 * 1024);
  #start = 0;
  #end = 0;

  /** `maxFrame`: a longer frame is refused before its bytes are read (bounds the buffer). */
  constructor(stream: ReadableStream<Uint8Array>, readonly maxFrame = Infinity) {
    this.#reader = stream.getReader({ mode: "byob" });
  }

  async #fill(n: number): Promise<boolean> {
    while (this.#end - this.#start < n) {
      if (this.#buf.length - this.#start < n) {
        // Make room: move the unread bytes to the front (a frame larger than the buffer is
        // read by #readLarge, so `n` always fits).
        this.#buf.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      }
      const view = new Uint8Array(this.#buf.buffer, this.#end, this.#buf.length - this.#end);
      const { value, done } = await this.#reader.read(view);
      if (done || !value) return false;
      this.#buf = new Uint8Array(value.buffer);
      this.#end += value.byteLength;
    }
    return true;
  }

  async read(): Promise<Frame | null> {
    if (!(await this.#fill(5))) return null;
    const len = new DataView(this.#buf.buffer, this.#start, 4).getUint32(0);
    if (len - 1 > this.maxFrame) throw new FrameTooLargeError(len - 1);
    if (4 + len > this.#buf.length) return await this.#readLarge(len - 1);
    if (!(await this.#fill(4 + len))) return null;
    const kind = this.#buf[this.#start + 4];
    const payload = this.#buf.slice(this.#start + 5, this.#start + 4 + len);
    this.#start += 4 + len;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return { kind, payload };
  }

  /**
   * A frame larger than the buffer (a whole answer) is read straight into its own array, which
   * becomes the payload: no copy through the buffer, which keeps its size.
   */
  async #readLarge(size: number): Promise<Frame | null> {
    const kind = this.#buf[this.#start + 4];
    let buffer = new ArrayBuffer(size);
    const have = Math.min(this.#end - this.#start - 5, size);
    new Uint8Array(buffer).set(this.#buf.subarray(this.#start + 5, this.#start + 5 + have));
    this.#start += 5 + have;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    for (let got = have; got < size;) {
      const { value, done } = await this.#reader.read(new Uint8Array(buffer, got, size - got));
      if (done || !value) return null;
      // A BYOB read hands the memory back in a new ArrayBuffer.
      buffer = value.buffer as ArrayBuffer;
      got += value.byteLength;
    }
    return { kind, payload: new Uint8Array(buffer) };
  }

  cancel(): void {
    this.#reader.cancel().catch(() => {});
  }
}

/**
 * Whole frames read with blocking reads, for a worker that has nothing else to do while it
 * waits for its next request: an asynchronous read through a stream cost a local worker as
 * much as the point query it was waiting for.
 */
export class SyncFrameReader {
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  constructor(private readonly file: { readSync(p: Uint8Array): number | null }) {}

  #fill(n: number): boolean {
    while (this.#end - this.#start < n) {
      if (this.#buf.length - this.#start < n) {
        if (n > this.#buf.length) {
          const next = new Uint8Array(n);
          next.set(this.#buf.subarray(this.#start, this.#end));
          this.#buf = next;
        } else {
          this.#buf.copyWithin(0, this.#start, this.#end);
        }
        this.#end -= this.#start;
        this.#start = 0;
      }
      const got = this.file.readSync(this.#buf.subarray(this.#end));
      if (got === null || got === 0) return false;
      this.#end += got;
    }
    return true;
  }

  /** The next frame; null at the end of the input. */
  read(): Frame | null {
    if (!this.#fill(5)) return null;
    const len = new DataView(this.#buf.buffer, this.#start, 4).getUint32(0);
    if (!this.#fill(4 + len)) return null;
    const kind = this.#buf[this.#start + 4];
    const payload = this.#buf.slice(this.#start + 5, this.#start + 4 + len);
    this.#start += 4 + len;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return { kind, payload };
  }

  /** Bytes read past the last frame returned. */
  get buffered(): number {
    return this.#end - this.#start;
  }
}

/**
 * What the server asks a worker to do. `timeLeftMs`: the time the request has left, of its
 * limit `limitMs`, when it is sent (a driver that can stop itself does so then; see Db.timeLimit).
 */
export type WorkerRequest =
  & { timeLeftMs?: number; limitMs?: number }
  & (
    | { op: "info" }
    | { op: "tables" }
    | { op: "table"; name: string }
    | { op: "indexes"; name: string }
    | {
      op: "query" | "explain";
      sql: string;
      params?: unknown;
      format: "json" | "csv" | "xml" | "json-download";
      maxRows: number;
      /** Refuse writes even on a --write server (GET requests: a link must never write). */
      readOnly?: boolean;
    }
  );

/** The first frame a worker receives: which database, how. */
export interface WorkerConfig {
  database: string;
  authToken?: string;
  write: boolean;
  /** How /info names the database (no server paths). */
  label: string;
}

/** The head of a worker's answer. */
export interface WorkerHead {
  status: number;
  contentType: string;
  /** For downloads: a file name for Content-Disposition. */
  filename?: string;
}

/** The end of a worker's answer. */
export interface WorkerEnd {
  ok: boolean;
  rows: number;
  durationMs: number;
  /**
   * The worker could not put its connection back as it was (a transaction left open); it exits
   * after this answer and must be replaced, not reused.
   */
  recycle?: boolean;
}
