/**
 * Reads one URL with fetchFeedUrl and prints the outcome and how much the read raised this
 * process's peak RSS (VmHWM), so fetch_bomb_test measures one read alone, not the test runner's other files.
 * Usage: deno run -A fetch_bomb_child.ts URL MAX_BYTES
 */
import { fetchFeedUrl } from "../../src/feeds/fetch.ts";

const [url, maxBytes] = Deno.args;
async function peakRss(): Promise<number> {
  const status = await Deno.readTextFile("/proc/self/status");
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}
const before = await peakRss();
let error: string | null = null;
try {
  await fetchFeedUrl(url, { timeoutMs: 60_000, maxBytes: Number(maxBytes) });
} catch (e) {
  error = e instanceof Error ? e.message : String(e);
}
console.log(JSON.stringify({ error, growth: (await peakRss()) - before }));
