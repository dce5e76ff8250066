import { redactUrl } from "../log/secret.ts";

/** A feed could not be fetched or read. The message is one line and names the URL. */
export class FeedError extends Error {
  readonly url: string;
  readonly reason: string;

  constructor(url: string, reason: string) {
    super(`${redactUrl(url)}: ${reason}`);
    this.name = "FeedError";
    this.url = url;
    this.reason = reason;
  }
}
