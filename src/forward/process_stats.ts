/**
 * The readings behind Prometheus' standard `process_*` metrics (what client_golang's process
 * collector exposes), taken when `/metrics` is scraped. Open and maximum descriptors come from
 * /proc, so they are only known on Linux; elsewhere they are null and not exposed.
 */
import { cpuUsage } from "node:process";

export interface ProcessReading {
  /** User and system CPU time, in seconds. */
  cpuSeconds: number;
  /** Resident memory, in bytes. */
  rss: number;
  /** JavaScript heap in use, in bytes. */
  heapUsed: number;
  openFds: number | null;
  maxFds: number | null;
}

function openFds(): number | null {
  try {
    let n = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) n++;
    // The directory's own descriptor, open while it is read, is not one of the process's.
    return n - 1;
  } catch {
    return null;
  }
}

function maxFds(): number | null {
  try {
    const limit = /^Max open files\s+(\d+)/m.exec(Deno.readTextFileSync("/proc/self/limits"));
    return limit ? Number(limit[1]) : null;
  } catch {
    return null;
  }
}

/** This process, now. */
export function readProcess(): ProcessReading {
  const cpu = cpuUsage();
  const memory = Deno.memoryUsage();
  return {
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    openFds: openFds(),
    maxFds: maxFds(),
  };
}
