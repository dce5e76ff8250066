import { DEFAULT_MESSENGER_API } from "../messenger/default_api.ts";
import type { Command } from "./command.ts";
import { DEFAULT_CONCURRENCY, DEFAULT_GRACE_S } from "./defaults.ts";

export const forwardCommand: Command = {
  name: "forward",
  summary: "run every feed on its cron schedule until stopped (the service)",
  help: `Usage: courier forward [-c FILE] [--concurrency N] [--grace SECONDS] [--metrics ADDR]
                      [--fetch-timeout SECONDS] [--messenger-api URL] [--log-level LEVEL]
                      [--dry-run]

Runs each feed of the config on its own cron schedule (five fields, the machine's local time
zone unless TZ says otherwise) for as long as it runs, holding the data directory's lock.
At start, a feed whose last scheduled time passed since its last success (in
last_loaded_path), or that never succeeded, runs at once. Feeds due together run
concurrently; a feed still running when its next time comes is skipped for that time (a
warning). A failed run is logged and tried again at the next scheduled time; a bad token
(401) is logged at every attempt until it is fixed and the config reloaded.

Options:
  -c, --config FILE      config file (default: $COURIER_CONFIG, else ./config.yml)
  --concurrency N        feeds fetched at once (default ${DEFAULT_CONCURRENCY}); one server gets at
                         most half of them, servers that were slow share half
  --fetch-timeout SECONDS
                         time limit of one feed request, body included (default 30)
  --grace SECONDS        on SIGINT/SIGTERM, how long runs under way may take to finish
                         (default ${DEFAULT_GRACE_S})
  --metrics ADDR         serve GET /healthz, /readyz and /metrics (Prometheus) on ADDR:
                         127.0.0.1:9464 for this machine only; a bare :9464 binds every
                         interface, as Prometheus exporters do; off by default
  --messenger-api URL    Bot API base URL (default: $COURIER_MESSENGER_API, else
                         ${DEFAULT_MESSENGER_API})
  --log-level LEVEL      debug, info, warn or error (default: $COURIER_LOG_LEVEL, else info);
                         at info a run that found nothing new logs nothing
  --log-format FORMAT    text or json (default: $COURIER_LOG_FORMAT, else text)
  --dry-run              print the messages instead of sending them; record nothing

Signals:
  SIGHUP                 reload the config: feeds added, changed, removed; a new token or
                         proxy is used from the next message. An invalid config (or one that
                         changes data_dir, db_dir or last_loaded_path) is refused with
                         "reload failed" and the old one keeps running.
  SIGINT, SIGTERM        start no new run; let the runs under way finish within --grace,
                         then stop them before their next message; write the state; exit 0.
                         A second one exits at once (130/143); nothing sent is lost.

Exit codes: 0 stopped by a signal after a clean shutdown, 1 could not start (another courier
holds the data directory, the metrics address is taken), 2 usage or config error or a data
directory that cannot be created (not restarted by the shipped unit), 130/143 a second
SIGINT/SIGTERM.`,
  // The implementation (and its dependencies) is loaded only when this command runs.
  run: async (argv, { logFormat }) => (await import("./forward_run.ts")).run(argv, logFormat),
};
