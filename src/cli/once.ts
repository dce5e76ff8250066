import { DEFAULT_MESSENGER_API } from "../messenger/default_api.ts";
import type { Command } from "./command.ts";
import { DEFAULT_CONCURRENCY } from "./defaults.ts";

export const onceCommand: Command = {
  name: "once",
  summary: "run every feed once (fetch, send new entries), then exit",
  help: `Usage: courier once [-c FILE] [--feed NAME]... [--dry-run] [--summary] [--concurrency N]
                   [--messenger-api URL] [--log-level LEVEL]

Runs every feed of the config once (or only the named ones): fetches it, sends the entries
not sent before to its channel, oldest first, records them, then prints a summary per feed
(fetched, new, sent, failed, error) on stdout when something was sent or failed. A run with
nothing new and nothing failed prints nothing, so cron mails only news and trouble.

On a feed's first sighting only its newest first_time_limit entries are sent; the older ones
are recorded as seen. An entry is recorded as sent only once the messenger accepted it, so a
crash loses nothing (at most the one message in flight per channel is sent again). A feed that
fails keeps its unsent entries for the next run and does not stop the others.

Options:
  -c, --config FILE      config file (default: $COURIER_CONFIG, else ./config.yml)
  --feed NAME            run only this feed (repeatable)
  --dry-run              print the messages that would be sent; change no state, send nothing
  --summary              print the summary table even when nothing was sent or failed
  --concurrency N        feeds fetched at once (default ${DEFAULT_CONCURRENCY})
  --messenger-api URL    Bot API base URL (default: $COURIER_MESSENGER_API, else
                         ${DEFAULT_MESSENGER_API})
  --log-level LEVEL      debug, info, warn or error (default: $COURIER_LOG_LEVEL, else info)

Delivery stays within Telegram's limits (20 messages a minute per channel, 30 a second in
all), waits as told on 429, retries 5xx and network errors, and follows chat migrations.
A 401 (bad token) stops the run.

The first Ctrl-C (SIGINT) or SIGTERM starts no new feed, lets the sends under way finish,
records them and prints the summary; a second one stops at once (nothing sent is lost).

Exit codes: 0 every feed succeeded, 1 a feed or a delivery failed (or another courier holds
the data directory), 2 usage or config error or a data directory that cannot be created,
130/143 stopped by SIGINT/SIGTERM.`,
  // The implementation (and its dependencies) is loaded only when this command runs.
  run: async (argv, { logFormat }) => (await import("./once_run.ts")).run(argv, logFormat),
};
