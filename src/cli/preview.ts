import type { Command } from "./command.ts";

export const previewCommand: Command = {
  name: "preview",
  summary: "fetch or read one feed and print its entries in send order",
  help: `Usage: courier preview URL|FILE [--type rss|atom] [--proxy URL] [--json]
       courier preview URL|FILE -c CONFIG --feed NAME [--json]

Reads one feed, from an http(s) URL or a local file, exactly as a feed run would (same
fetching, parsing, identity, deduplication and ordering) and prints its entries in the order
they would be sent: title, link, date and id. Warnings (a wrong charset, a format that does
not match --type, ...) go to stderr. Nothing is sent and nothing is recorded.

Options:
  --type rss|atom     the type the config would give; a mismatch is reported as a warning
  --proxy URL         fetch the URL through this proxy, written as in the config: http://,
                      https://, socks5://, socks5h:// (user:pass@ allowed), socks5://unix/PATH
  --json              print {"format", "title", "entries": [{"id", "link", "title",
                      "published"}]} with dates in RFC 3339 (null when absent)
  -c, --config FILE   with --feed: the config to read the feed from (default $COURIER_CONFIG,
                      else ./config.yml)
  --feed NAME         show the entries as that feed treats them: which its filter keeps and
                      drops (and why), and the message each kept one becomes (its template,
                      topic, silent); --json adds "kept", "dropped" and "message" per entry

Exit codes: 0 read, 1 the feed could not be fetched or is not a feed, 2 usage error.`,
  // The implementation (and its dependencies) is loaded only when this command runs.
  run: async (argv) => (await import("./preview_run.ts")).run(argv),
};
