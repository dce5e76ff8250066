import { Buffer } from "node:buffer";
import { Deadlines } from "../time/deadlines.ts";
import { redactUrl } from "../secrets/secret.ts";
import { proxyOf } from "../net/client.ts";
import { describeNetworkFailure } from "../net/failure.ts";
import { describeStatus } from "../net/http_status.ts";
import { describeProxy, type ProxySpec } from "../net/proxy.ts";
import { VERSION } from "../version.ts";
import { formatRfc3339 } from "../time/rfc3339.ts";
import { FeedError } from "./errors.ts";
import { parseRetryAfter, processPauses, type ServerPauses } from "./retry_after.ts";

/** HTTP validators kept per URL for conditional GET. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
  /**
   * Hash of what the last read parsed (final URL, content type, decompressed body; see
   * bodyHashOf): a 200 with the same hash is as unchanged as a 304, so it need not be parsed
   * again.
   */
  bodyHash: string | null;
}

export interface FetchOptions {
  validators?: Validators;
  /** Proxy client from src/net (undefined = direct). */
  client?: Deno.HttpClient;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** The deadlines timer to use; default the process's. */
  deadlines?: Deadlines;
  /** The servers that asked (Retry-After) not to be asked again yet; default the process's. */
  pauses?: ServerPauses;
  /** The feed's name, for errors that name a proxy rather than the URL. */
  feed?: string;
}

export type FetchResult =
  | { kind: "notModified"; finalUrl: string; validators: Validators }
  | {
    kind: "ok";
    finalUrl: string;
    body: Uint8Array;
    contentType: string | null;
    validators: Validators;
  };

export const MAX_REDIRECTS = 5;
export const USER_AGENT = `courier/${VERSION}`;
const ACCEPT =
  "application/rss+xml, application/atom+xml, application/rdf+xml, application/xml;q=0.9, " +
  "text/xml;q=0.9, */*;q=0.8";

class TooLarge extends Error {}

/** Reads a stream to the end, failing as soon as it passes maxBytes (never buffering more). */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new TooLarge();
      // fetch's decoded gzip and br chunks are 4 KiB views of 64 KiB buffers: kept as they are,
      // a body at the cap would hold 16 times the cap.
      chunks.push(value.byteLength < value.buffer.byteLength ? value.slice() : value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/**
 * The body, decoded and capped. Read whole when its length is declared, within the cap, and
 * not encoded (fetch delivers exactly Content-Length bytes then, and reading in one go costs
 * far less than chunk by chunk); otherwise streamed, so a decompressed or undeclared body is
 * cut off as soon as it passes the cap.
 */
async function readBody(response: Response, encoding: string, maxBytes: number) {
  if (!response.body) return new Uint8Array();
  const length = response.headers.get("content-length") ?? "";
  const identity = encoding === "" || encoding === "identity";
  if (identity && /^\d+$/.test(length) && Number(length) <= maxBytes) {
    return new Uint8Array(await response.arrayBuffer());
  }
  // Deno's fetch undoes gzip and br itself, in bounded steps; deflate it hands over as it came.
  const stream = encoding.includes("deflate") ? await inflate(response.body) : response.body;
  return await readCapped(stream, maxBytes);
}

/**
 * Deflate is 1:1032 at most, so an input slice of this size never expands past ~4 MiB at once:
 * DecompressionStream inflates each chunk it is given whole, and a 2 MB chunk of a bomb is 2 GiB.
 */
const INFLATE_SLICE = 4096;

/** Small slices of a stream's chunks, pulled one at a time as the reader asks. */
async function* slices(
  first: Uint8Array,
  rest: ReadableStreamDefaultReader<Uint8Array>,
): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  try {
    for (let chunk: Uint8Array | undefined = first; chunk;) {
      for (let i = 0; i < chunk.length; i += INFLATE_SLICE) {
        yield chunk.subarray(i, i + INFLATE_SLICE) as Uint8Array<ArrayBuffer>;
      }
      const next = await rest.read();
      chunk = next.done ? undefined : next.value;
    }
  } finally {
    await rest.cancel().catch(() => {});
  }
}

/**
 * A deflate body inflated as it streams, in either of its two shapes (zlib-wrapped, as the RFC
 * says, or raw, as some servers send it); told apart by the zlib header's first two bytes.
 */
async function inflate(body: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  let head = new Uint8Array();
  while (head.length < 2) {
    const { done, value } = await reader.read();
    if (done) break;
    head = Buffer.concat([head, value]);
  }
  const zlib = head.length >= 2 && (head[0] & 0x0f) === 8 &&
    ((head[0] << 8) | head[1]) % 31 === 0;
  return ReadableStream.from(slices(head, reader))
    .pipeThrough(new DecompressionStream(zlib ? "deflate" : "deflate-raw"));
}

/** The validators of a 304 (the body is the previous one) or of a fresh body. */
function validatorsOf(headers: Headers, previous: Validators | undefined, bodyHash: string | null) {
  return {
    etag: headers.get("etag") ?? previous?.etag ?? null,
    lastModified: headers.get("last-modified") ?? previous?.lastModified ?? null,
    bodyHash: bodyHash ?? previous?.bodyHash ?? null,
  };
}

/** One line, with any credentials in URLs it quotes (proxy errors do) masked. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/[a-z][a-z0-9+.-]*:\/\/[^\s)"']+/gi, redactUrl);
}

/** "proxy socks5://user:***@host:1080 (feed "x")": the proxy, never its password. */
function proxyPlace(proxy: ProxySpec, feed: string | undefined, url: string): string {
  const forWhat = feed === undefined ? `for ${redactUrl(url)}` : `feed ${JSON.stringify(feed)}`;
  return `proxy ${describeProxy(proxy)} (${forWhat})`;
}

/** The process's deadlines, for every caller that does not bring its own. */
export const processDeadlines = new Deadlines();

/** The request headers for a set of stored validators (built once for a URL without any). */
function requestHeaders(validators: Validators | undefined): Record<string, string> {
  if (!validators?.etag && !validators?.lastModified) return PLAIN_HEADERS;
  const headers = { ...PLAIN_HEADERS };
  if (validators.etag) headers["if-none-match"] = validators.etag;
  if (validators.lastModified) headers["if-modified-since"] = validators.lastModified;
  return headers;
}

/**
 * The body hasher, loaded with the first body read: instantiating its WebAssembly costs
 * start-up time (bench/NOTES.md) that a run that only meets 304s (the steady state of feeds
 * with validators) never needs.
 */
let bodyHash: Promise<typeof import("./body_hash.ts")> | undefined;

const PLAIN_HEADERS: Readonly<Record<string, string>> = {
  "user-agent": USER_AGENT,
  "accept": ACCEPT,
  "accept-encoding": "gzip, deflate, br",
};

/**
 * GETs one feed URL: conditional on stored validators, following at most MAX_REDIRECTS
 * redirects by hand (so the final URL, the base for relative links, is known), with one timeout
 * covering the whole exchange including the body, and the body capped after decompression.
 * Throws FeedError naming `url` for every failure.
 */
export async function fetchFeedUrl(url: string, options: FetchOptions): Promise<FetchResult> {
  const controller = new AbortController();
  let timedOut = false;
  const deadlines = options.deadlines ?? processDeadlines;
  const deadline = deadlines.add(deadlines.deadlineIn(options.timeoutMs), () => {
    timedOut = true;
    controller.abort(new DOMException("timed out", "TimeoutError"));
  });
  const outer = options.signal;
  const stop = () => controller.abort(outer?.reason);
  if (outer?.aborted) stop();
  else outer?.addEventListener("abort", stop, { once: true });
  const signal = controller.signal;
  const headers = requestHeaders(options.validators);
  const pauses = options.pauses ?? processPauses;

  let current = url;
  try {
    for (let hop = 0;; hop++) {
      let parsed: URL;
      try {
        parsed = new URL(current);
      } catch {
        throw new FeedError(url, `invalid URL "${redactUrl(current)}"`);
      }
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
        throw new FeedError(
          url,
          `unsupported URL scheme ${parsed.protocol} (at ${redactUrl(current)})`,
        );
      }
      const where = current === url ? "" : ` (at ${redactUrl(current)})`;
      const pausedUntil = pauses.until(current);
      if (pausedUntil !== null) {
        throw new FeedError(
          url,
          `not fetched: ${parsed.origin} asked not to be asked again before ` +
            `${formatRfc3339(new Date(pausedUntil))}${where}`,
        );
      }
      const response = await fetch(current, {
        headers,
        redirect: "manual",
        signal,
        client: options.client,
      });
      const status = response.status;
      if (status >= 300 && status < 400 && status !== 304) {
        await response.body?.cancel();
        const location = response.headers.get("location");
        if (!location) throw new FeedError(url, `HTTP ${status} redirect without a Location`);
        if (hop >= MAX_REDIRECTS) {
          throw new FeedError(url, `more than ${MAX_REDIRECTS} redirects`);
        }
        current = new URL(location, current).href;
        continue;
      }
      if (status === 304) {
        await response.body?.cancel();
        return {
          kind: "notModified",
          finalUrl: current,
          validators: validatorsOf(response.headers, options.validators, null),
        };
      }
      if (status < 200 || status >= 300) {
        await response.body?.cancel();
        const proxy = proxyOf(options.client);
        if (status === 407 && proxy !== null) {
          throw new FeedError(
            url,
            `${describeStatus(status)} (check the proxy's user name and password)`,
            proxyPlace(proxy, options.feed, current),
          );
        }
        let retry = "";
        if (status === 429 || status === 503) {
          const until = parseRetryAfter(response.headers.get("retry-after"), pauses.clock.now());
          if (until !== null) {
            pauses.pause(current, until);
            retry = `; not asked again before ${formatRfc3339(new Date(until))}`;
          }
        }
        throw new FeedError(
          url,
          `${describeStatus(status, oneLine(response.statusText))}${where}${retry}`,
        );
      }
      const encoding = response.headers.get("content-encoding")?.toLowerCase() ?? "";
      const body = await readBody(response, encoding, options.maxBytes);
      if (body.length === 0) throw new FeedError(url, "empty response body");
      const contentType = response.headers.get("content-type");
      const { bodyHashOf } = await (bodyHash ??= import("./body_hash.ts"));
      return {
        kind: "ok",
        finalUrl: current,
        body,
        contentType,
        validators: validatorsOf(
          response.headers,
          undefined,
          bodyHashOf(current, contentType, body),
        ),
      };
    }
  } catch (error) {
    if (error instanceof FeedError) throw error;
    if (error instanceof TooLarge) {
      throw new FeedError(url, `response body larger than the cap of ${options.maxBytes} bytes`);
    }
    if (timedOut) throw new FeedError(url, `timed out after ${options.timeoutMs} ms`);
    if (options.signal?.aborted) throw new FeedError(url, "cancelled");
    const proxy = proxyOf(options.client);
    const { reason, atProxy } = describeNetworkFailure(error, proxy, current);
    const where = current === url ? "" : ` (at ${redactUrl(current)})`;
    if (proxy === null || !atProxy) throw new FeedError(url, `${oneLine(reason)}${where}`);
    throw new FeedError(url, oneLine(reason), proxyPlace(proxy, options.feed, current));
  } finally {
    deadlines.cancel(deadline);
    outer?.removeEventListener("abort", stop);
  }
}
