const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A `courier browse` server in its own process, for measuring it from outside. */
export interface BrowseProcess {
  url: string;
  pid: number;
  child: Deno.ChildProcess;
  stop(): Promise<Deno.CommandStatus>;
}

/** Starts `courier browse ARGS --port 0` and waits for the line with its URL. */
export async function startBrowseProcess(args: string[]): Promise<BrowseProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "browse", "--port", "0", ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      const err = await new Response(child.stderr).text();
      await child.status;
      throw new Error(`courier browse exited before serving: ${err}`);
    }
    seen += value;
    const m = /(http:\/\/\S+\/)/.exec(seen);
    if (m) {
      reader.releaseLock();
      child.stdout.cancel().catch(() => {});
      child.stderr.cancel().catch(() => {});
      return {
        url: m[1],
        pid: child.pid,
        child,
        stop: async () => {
          child.kill("SIGTERM");
          return await child.status;
        },
      };
    }
  }
}

/** Peak resident memory of a process, bytes (VmHWM). */
export function peakRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0") * 1024;
}

/** Direct children of a process (its query workers). */
export function childPids(pid: number): number[] {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/)
      .filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
