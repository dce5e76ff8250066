import type { FeedType } from "../model/feed_type.ts";
import { typeMismatch } from "../feeds/format.ts";
import { readFeed } from "../feeds/read.ts";
import { openProxyClient } from "../net/client.ts";
import { parseProxy, ProxyError } from "../net/proxy.ts";
import { UsageError } from "./errors.ts";
import type { Preview } from "./preview_view.ts";

/** `--proxy` as the config takes it ("" = direct); its errors never show the password. */
function proxySpec(value: string | undefined) {
  if (value === undefined || value === "") return null;
  try {
    return parseProxy(value);
  } catch (error) {
    if (error instanceof ProxyError) {
      throw new UsageError(`courier preview: --proxy: ${error.message}`);
    }
    throw error;
  }
}

/**
 * `courier preview URL`: fetched as a feed run would. Loaded only for a URL, so that a file's
 * preview does not load the HTTP stack (node:http alone shows in start-up).
 */
export async function previewUrl(
  url: string,
  type: FeedType | undefined,
  proxy: string | undefined,
): Promise<Preview> {
  const proxyClient = openProxyClient(proxySpec(proxy));
  try {
    const read = await readFeed({ urls: [url], type: type ?? "rss", client: proxyClient.client });
    // Without --type there is no hint to disagree with.
    const unwanted = type === undefined && read.format ? typeMismatch(read.format, "rss") : null;
    return { ...read, warnings: read.warnings.filter((w) => w !== unwanted) };
  } finally {
    await proxyClient.close();
  }
}
