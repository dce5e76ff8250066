/**
 * Stopping and waiting on child processes so that the suite never hangs: a process that misses
 * its signal (tinyproxy once missed a SIGTERM and `.ci/run` stood still for minutes) is killed
 * after a grace period, and a wait on a child's output ends when the child is killed. The bounds
 * are hang guards, not timing checks.
 */

/** How long a child has to exit after a polite signal before it is sent SIGKILL. */
export const GRACE_MS = 5_000;

/** The longest a test waits for a child to finish or to print what it waits for. */
export const CHILD_BOUND_MS = 120_000;

/** Sends `signal` unless the child has already exited. */
export function signal(child: Deno.ChildProcess, sig: Deno.Signal): void {
  try {
    child.kill(sig);
  } catch {
    // already exited
  }
}

/**
 * Sends `sig` (SIGTERM by default), then SIGKILL if the child has not exited within `graceMs`;
 * resolves with its status. Safe to call on a child that has exited.
 */
export async function stopChild(
  child: Deno.ChildProcess,
  sig: Deno.Signal = "SIGTERM",
  graceMs = GRACE_MS,
): Promise<Deno.CommandStatus> {
  signal(child, sig);
  const timer = setTimeout(() => signal(child, "SIGKILL"), graceMs);
  try {
    return await child.status;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What `waited` settles to; if it has not settled within `ms`, the child is killed (which ends
 * any read of its output or wait for its exit) and the wait fails naming `what`.
 */
export async function withinChild<T>(
  child: Deno.ChildProcess,
  what: string,
  waited: Promise<T>,
  ms = CHILD_BOUND_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      signal(child, "SIGKILL");
      reject(new Error(`${what}: not within ${ms / 1000} s; the process was killed`));
    }, ms);
  });
  try {
    return await Promise.race([waited, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** `child.output()`, killed (and failing) if the child has not ended within `ms`. */
export function outputWithin(
  child: Deno.ChildProcess,
  what: string,
  ms = CHILD_BOUND_MS,
): Promise<Deno.CommandOutput> {
  return withinChild(child, what, child.output(), ms);
}

/** `new Deno.Command(cmd, options).output()`, bounded as `outputWithin`. */
export function runWithin(
  cmd: string | URL,
  options: Deno.CommandOptions,
  ms = CHILD_BOUND_MS,
): Promise<Deno.CommandOutput> {
  const child = new Deno.Command(cmd, {
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...options,
  }).spawn();
  return outputWithin(child, `${cmd} ${(options.args ?? []).join(" ")}`.slice(0, 200), ms);
}

/** Reads `reader` to its end, handing each piece of text to `onText`. */
export async function readToEnd(
  reader: ReadableStreamDefaultReader<string>,
  onText: (text: string) => void,
): Promise<void> {
  for (let next = await reader.read(); !next.done; next = await reader.read()) onText(next.value);
}
