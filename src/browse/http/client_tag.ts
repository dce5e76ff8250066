/**
 * Who a request comes from, for sharing the query workers fairly (../pool/fair.ts): the peer
 * address the front accepted its connection from. Deno.serve only sees the front's relay on a
 * private Unix socket, so the front adds one header to each request head it relays: a random
 * tag of the connection, which the app maps back to the peer here (both live in one process).
 *
 * The tag carries no address, so nothing a client sends can claim another's: a tag it makes
 * up maps to nothing, and the front's comes first (right after the request line), so a copy
 * the client adds comes after it. A connection's tag is forgotten when it closes.
 */

/** The header the front adds; a client's own copy comes after the front's and is ignored. */
export const CLIENT_HEADER = "x-courier-client";

const encoder = new TextEncoder();
/** A request line the tag may follow; anything else (HTTP/2's preface) goes untagged. */
const HTTP1_LINE = /^[!-~]+ [!-~]+ HTTP\/1\.[01]\r?\n$/;

export interface ClientTag {
  /** Adds the tag after each request line that ends at one of `ends` (see MessageEvents.line). */
  insert(bytes: Uint8Array, ends: readonly number[]): Uint8Array;
  /** Whether the tag goes after a request's first line, `line`. */
  follows(line: string): boolean;
  /** Forgets the connection. */
  close(): void;
}

export class ClientTags {
  readonly #peers = new Map<string, string>();

  /** Registers a connection from `hostname`. */
  open(hostname: string): ClientTag {
    const tag = crypto.randomUUID();
    this.#peers.set(tag, clientKey(hostname));
    const line = encoder.encode(`${CLIENT_HEADER}: ${tag}\r\n`);
    return {
      insert: (bytes, ends) => insertAt(bytes, ends, line),
      follows: (text) => HTTP1_LINE.test(text),
      close: () => void this.#peers.delete(tag),
    };
  }

  /** The client a request comes from; "" for one without a tag the front gave. */
  clientOf(headers: Headers): string {
    const value = headers.get(CLIENT_HEADER);
    if (value === null) return "";
    return this.#peers.get(value.split(",")[0].trim()) ?? "";
  }

  /** Connections registered (tests watch them forgotten). */
  get size(): number {
    return this.#peers.size;
  }
}

/** `bytes` with `insert` put at each offset of `at` (ascending). */
export function insertAt(bytes: Uint8Array, at: readonly number[], insert: Uint8Array): Uint8Array {
  if (at.length === 0) return bytes;
  const out = new Uint8Array(bytes.length + at.length * insert.length);
  let from = 0;
  let o = 0;
  for (const i of at) {
    out.set(bytes.subarray(from, i), o);
    o += i - from;
    out.set(insert, o);
    o += insert.length;
    from = i;
  }
  out.set(bytes.subarray(from), o);
  return out;
}

/**
 * The client a peer address counts as: an IPv4 address as it is (an IPv4-mapped IPv6 one
 * too); an IPv6 address by its /64, since one host is given a whole /64 and could otherwise
 * be as many clients as it likes.
 */
export function clientKey(hostname: string): string {
  const address = hostname.replace(/^\[|\]$/g, "").replace(/%.*$/, "").toLowerCase();
  if (!address.includes(":")) return address;
  let canonical: string;
  try {
    // The URL parser's canonical IPv6: lowercase hex groups (an IPv4 tail as two of them), the
    // longest run of zero groups as "::".
    canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  } catch {
    return address;
  }
  const [left, right] = canonical.split("::").map((half) => half === "" ? [] : half.split(":"));
  const groups = right === undefined
    ? left
    : [...left, ...new Array<string>(8 - left.length - right.length).fill("0"), ...right];
  if (groups.slice(0, 5).every((g) => g === "0") && groups[5] === "ffff") {
    const [high, low] = groups.slice(6).map((g) => parseInt(g, 16));
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  return `${groups.slice(0, 4).join(":")}::/64`;
}
