import { stopChild, withinChild } from "./child.ts";
import { courierArgs, PRODUCT_ENV } from "./product.ts";

/** A `courier browse` server in its own process, for measuring it from outside. */
export interface BrowseProcess {
  url: string;
  pid: number;
  child: Deno.ChildProcess;
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Starts `courier browse ARGS --port 0` and waits for the line with its URL. `prefix` runs it
 * under another command (`prlimit --nofile=1024 --`).
 */
export async function startBrowseProcess(
  args: string[],
  prefix: string[] = [],
): Promise<BrowseProcess> {
  const deno = courierArgs("browse", "--port", "0", ...args);
  const child = new Deno.Command(prefix[0] ?? Deno.execPath(), {
    args: prefix.length > 0 ? [...prefix.slice(1), Deno.execPath(), ...deno] : deno,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { ...PRODUCT_ENV, NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { url } = await withinChild(
    child,
    "courier browse printing its URL",
    readUntilServing(reader, async () => {
      const err = await new Response(child.stderr).text();
      await child.status;
      return err;
    }),
  );
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  child.stderr.cancel().catch(() => {});
  return {
    url,
    pid: child.pid,
    child,
    stop: () => stopChild(child),
  };
}

/** Resident memory of a live process, bytes: its peak so far (VmHWM) and now (VmRSS). */
export function rss(pid: number): { peak: number; now: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
  return { peak: kb("VmHWM") * 1024, now: kb("VmRSS") * 1024 };
}

/** Peak resident memory of a process, bytes (VmHWM). */
export function peakRss(pid: number): number {
  return rss(pid).peak;
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

/**
 * Reads a `courier browse` process's stdout until the line with its URL; fails with what
 * `stderr` gives (asked only then) if it ends first. Returns the URL and the text read (the
 * reader stays open).
 */
export async function readUntilServing(
  reader: ReadableStreamDefaultReader<string>,
  stderr: () => Promise<string>,
): Promise<{ url: string; seen: string }> {
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`courier browse exited before serving: ${await stderr()}`);
    seen += value;
    const url = /(http:\/\/\S+\/)/.exec(seen)?.[1];
    if (url !== undefined) return { url, seen };
  }
}
