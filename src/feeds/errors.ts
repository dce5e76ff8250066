import { redactUrl } from "../secrets/secret.ts";

/**
 * A feed could not be fetched or read. The message is one line and names the place that
 * failed: the URL, or (`place`) the proxy on the way to it.
 */
export class FeedError extends Error {
  readonly url: string;
  readonly reason: string;

  constructor(url: string, reason: string, place?: string) {
    super(`${place ?? redactUrl(url)}: ${reason}`);
    this.name = "FeedError";
    this.url = url;
    this.reason = reason;
  }
}

/** The reason for a page that is no feed but a web page (discover.ts adds the feeds it names). */
export const HTML_PAGE = "not a feed: it is an HTML page";
