/**
 * libfaketime (Debian's `faketime` package) preloaded into one child process, its clocks run
 * faster than the machine's: minutes of a real `courier forward`'s schedule, leases and pacer
 * pass in seconds, without a test hook in the product. The wall clock and the monotonic one
 * are both sped up (Deno's timers, Date.now and performance.now agree); only the child that
 * gets this environment is affected, never the test or the servers it talks to.
 */

/** Where Debian's multiarch layout puts the thread-safe build (Deno runs several threads). */
function libraryPath(): string {
  const triplet = Deno.build.arch === "aarch64" ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
  return `/usr/lib/${triplet}/faketime/libfaketimeMT.so.1`;
}

/** Why a sped-up clock cannot be had here, or null. */
export function faketimeMissing(): string | null {
  if (Deno.build.os !== "linux") return "libfaketime is preloaded on Linux only";
  try {
    Deno.statSync(libraryPath());
    return null;
  } catch {
    return `no ${libraryPath()} (Debian package faketime)`;
  }
}

/** The environment that runs a child's clocks `factor` times as fast, from the real now. */
export function fastClockEnv(factor: number): Record<string, string> {
  return { LD_PRELOAD: libraryPath(), FAKETIME: `+0 x${factor}` };
}

/**
 * The environment that sets a child's wall clock `offset` off the machine's ("+90", "-10":
 * seconds), as a machine whose clock is wrong; its monotonic clock stays the machine's.
 */
export function skewedClockEnv(offset: string): Record<string, string> {
  return { LD_PRELOAD: libraryPath(), FAKETIME: offset, DONT_FAKE_MONOTONIC: "1" };
}
