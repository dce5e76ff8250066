/**
 * Where the HTTP/1.1 messages of one direction of a relayed connection begin and end, from the
 * bytes as they pass: the front (front.ts) tells a connection whose request is being answered
 * from an idle kept-alive one without parsing more than heads and chunk sizes (bodies are
 * skipped by their length).
 */

type State =
  | "start"
  | "head"
  | "body"
  | "chunk-size"
  | "chunk-data"
  | "chunk-end"
  | "trailer"
  | "close";

/** A head longer than this is not followed: the connection counts as busy until it closes. */
const MAX_HEAD = 64 * 1024;

export interface MessageEvents {
  /**
   * A message's first line is in (its text, line end included); `at`: where it ends in the
   * bytes just fed (the front tags requests there, client_tag.ts).
   */
  line?(line: string, at: number): void;
  /** A message's head is in: its first line and headers, as Latin-1 text. */
  head(head: string): void;
  /** The message has ended (its body included). */
  end(): void;
  /** A 101 answer: what follows is another protocol, not followed (the scanner stops). */
  switched?(): void;
}

export class MessageScanner {
  #state: State = "start";
  #text = "";
  /** The head's first line is in. */
  #lineIn = false;
  /**
   * Bytes on the head's current line so far, and the last of them: a blank line ("" or "\r")
   * is told from these, not by searching the text, which grows with every header.
   */
  #column = 0;
  #last = 0;
  #left = 0;

  /**
   * @param kind requests or responses
   * @param bodyless for responses: whether the answer now expected has no body (a HEAD's)
   */
  constructor(
    private readonly kind: "request" | "response",
    private readonly events: MessageEvents,
    private readonly bodyless: () => boolean = () => false,
  ) {}

  /** Between messages, with no byte of the next one seen. */
  get between(): boolean {
    return this.#state === "start";
  }

  feed(bytes: Uint8Array): void {
    let i = 0;
    while (i < bytes.length) {
      switch (this.#state) {
        case "close":
          return;
        case "start":
        case "head": {
          this.#state = "head";
          let done = false;
          while (i < bytes.length && !done) {
            const c = bytes[i++];
            this.#text += String.fromCharCode(c);
            if (c !== 10) {
              this.#column++;
              this.#last = c;
              continue;
            }
            // Lines end in CRLF or a bare LF, as the server (hyper) reads them: else it and the
            // front would disagree where a message ends.
            const blank = this.#column === 0 || (this.#column === 1 && this.#last === 13);
            this.#column = 0;
            if (this.#lineIn) done = blank;
            else if (blank) this.#text = ""; // skipped, as hyper does
            else {
              this.#lineIn = true;
              this.events.line?.(this.#text, i);
            }
          }
          if (done) this.#headDone();
          else if (this.#text.length > MAX_HEAD) this.#state = "close";
          break;
        }
        case "body":
        case "chunk-data":
        case "chunk-end": {
          // Skipped by their length: a body, a chunk's data, the CRLF after it.
          const n = Math.min(this.#left, bytes.length - i);
          i += n;
          this.#left -= n;
          if (this.#left > 0) break;
          if (this.#state === "body") this.#ended();
          else if (this.#state === "chunk-end") this.#state = "chunk-size";
          else {
            this.#left = 2;
            this.#state = "chunk-end";
          }
          break;
        }
        case "chunk-size":
        case "trailer": {
          const c = String.fromCharCode(bytes[i++]);
          this.#text += c;
          if (this.#text.length > MAX_HEAD) this.#state = "close";
          if (c !== "\n") break;
          const line = this.#text.trim();
          this.#text = "";
          if (this.#state === "trailer") {
            if (line === "") this.#ended();
            break;
          }
          const size = parseInt(line.split(";")[0], 16);
          if (!Number.isFinite(size)) this.#state = "close";
          else if (size === 0) this.#state = "trailer";
          else {
            this.#left = size;
            this.#state = "chunk-data";
          }
          break;
        }
      }
    }
  }

  #headDone(): void {
    const head = this.#text;
    this.#text = "";
    this.#lineIn = false;
    const lower = head.toLowerCase();
    if (this.kind === "response") {
      const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(head)?.[1] ?? "0");
      if (status === 101) {
        this.#state = "close";
        return this.events.switched?.();
      }
      // An interim answer (100 Continue): the final one follows.
      if (status >= 100 && status < 200) {
        this.#state = "start";
        return;
      }
      this.events.head(head);
      if (this.bodyless() || status === 204 || status === 304) return this.#ended();
    } else {
      this.events.head(head);
    }
    if (/\ntransfer-encoding:[^\r\n]*chunked/.test(lower)) {
      this.#state = "chunk-size";
      return;
    }
    const length = /\ncontent-length:[ \t]*(\d+)/.exec(lower);
    if (length) {
      this.#left = Number(length[1]);
      if (this.#left === 0) return this.#ended();
      this.#state = "body";
      return;
    }
    // A request without a length has no body; an answer without one runs until the close.
    if (this.kind === "request") this.#ended();
    else this.#state = "close";
  }

  #ended(): void {
    this.#state = "start";
    this.events.end();
  }
}
