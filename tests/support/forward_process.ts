/** A real `courier forward` process whose log (stderr) a test reads as it comes. */
import { CHILD_BOUND_MS, readToEnd, signal, stopChild, withinChild } from "./child.ts";

import { courierArgs, PRODUCT_ENV } from "./product.ts";

export interface ForwardProcess {
  /** The process id (the same after forward re-executes itself with its V8 flags). */
  pid: number;
  /** Reads the log until it holds `text`; fails if the process ends first. */
  until(text: string): Promise<void>;
  /** Reads the log until it holds `text` `times` times; fails if the process ends first. */
  untilCount(text: string, times: number): Promise<void>;
  /** Reads the log until `done(log)`; fails, saying `what` it waited for, if it ends first. */
  untilLog(done: (log: string) => boolean, what: string): Promise<void>;
  /** SIGTERM, then the exit code and the whole log. */
  stop(): Promise<{ code: number; log: string }>;
  /** SIGKILL, and the process reaped. */
  kill(): Promise<void>;
  /** The log read so far. */
  readonly log: string;
}

export function startForward(args: string[], env: Record<string, string> = {}): ForwardProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: courierArgs("forward", ...args),
    env: { ...PRODUCT_ENV, NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  const untilLog = (done: (log: string) => boolean, what: string) =>
    withinChild(
      child,
      `forward logging ${what}`,
      (async () => {
        while (!done(log)) {
          const next = await reader.read();
          if (next.done) throw new Error(`forward ended before logging ${what}:\n${log}`);
          log += next.value;
        }
      })(),
    );
  const untilCount = (text: string, times: number) =>
    untilLog((log) => log.split(text).length - 1 >= times, text);
  return {
    pid: child.pid,
    get log() {
      return log;
    },
    async kill() {
      signal(child, "SIGKILL");
      await child.status;
      await child.stderr.cancel().catch(() => {});
    },
    until: (text) => untilCount(text, 1),
    untilCount,
    untilLog,
    async stop() {
      // forward lets runs under way finish within its --grace (30 s by default): SIGKILL only
      // well after that.
      const at = args.indexOf("--grace");
      const graceS = at >= 0 ? Number(args[at + 1]) : 30;
      const status = stopChild(child, "SIGTERM", (graceS + 15) * 1000);
      // The log ends when the process does; stopChild's SIGKILL bounds it.
      await withinChild(
        child,
        "forward's log ending",
        readToEnd(reader, (text) => log += text),
        CHILD_BOUND_MS,
      );
      return { code: (await status).code, log };
    },
  };
}
