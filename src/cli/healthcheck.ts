import type { Command } from "./command.ts";

export const healthcheckCommand: Command = {
  name: "healthcheck",
  summary: "ask a running forward's /healthz whether it is healthy (for Docker's HEALTHCHECK)",
  help: `Usage: courier healthcheck [ADDR]

Asks GET http://ADDR/healthz of a \`courier forward --metrics ADDR\` and exits 0 when it answers
200 (the scheduler ticks), 1 otherwise, saying why in one line on stderr. ADDR is HOST:PORT or
:PORT (this machine); default 127.0.0.1:9464. For container health checks, where there is no
curl: HEALTHCHECK CMD ["courier", "healthcheck"].

Options:
  --timeout SECONDS  give up after this long (default 5)

Exit codes: 0 healthy, 1 unhealthy or not answering, 2 usage error.`,
  // The implementation is loaded only when this command runs.
  run: async (argv) => (await import("./healthcheck_run.ts")).run(argv),
};
