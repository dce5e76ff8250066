import { parseCommandArgs } from "./args.ts";
import { UsageError, UserError } from "./errors.ts";

/** The /healthz URL of ADDR: `HOST:PORT`, `[IPV6]:PORT`, or `:PORT` for this machine. */
export function healthUrl(addr: string): string | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/.exec(addr.trim());
  if (m === null || Number(m[2]) < 1 || Number(m[2]) > 65535) return null;
  const host = m[1] === "" || m[1] === "0.0.0.0" ? "127.0.0.1" : m[1] === "[::]" ? "[::1]" : m[1];
  return `http://${host}:${m[2]}/healthz`;
}

/** `courier healthcheck`: loaded by healthcheckCommand.run only when the command runs. */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("healthcheck", argv, {
    timeout: { type: "string" },
  }, true);
  if (positionals.length > 1) {
    throw new UsageError(
      "courier healthcheck: at most one ADDR (see 'courier healthcheck --help')",
    );
  }
  const addr = positionals[0] ?? "127.0.0.1:9464";
  const url = healthUrl(addr);
  if (url === null) {
    throw new UsageError(
      `courier healthcheck: ADDR must be HOST:PORT or :PORT, got ${JSON.stringify(addr)}`,
    );
  }
  const seconds = Number(values.timeout ?? "5");
  if (!/^\d+(\.\d+)?$/.test(values.timeout ?? "5") || seconds <= 0) {
    throw new UsageError(
      `courier healthcheck: --timeout must be a number of seconds > 0, got "${values.timeout}"`,
    );
  }
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(seconds * 1000) });
  } catch (error) {
    const why = error instanceof DOMException && error.name === "TimeoutError"
      ? `no answer within ${seconds} s`
      : "not answering (is courier forward running with --metrics?)";
    throw new UserError(`courier healthcheck: ${url}: ${why}`, 1);
  }
  const body = await response.text();
  if (response.status !== 200) {
    const status = (() => {
      try {
        return JSON.parse(body).status;
      } catch {
        return undefined;
      }
    })();
    throw new UserError(
      `courier healthcheck: ${url}: HTTP ${response.status}${status ? ` (${status})` : ""}`,
      1,
    );
  }
  return 0;
}
