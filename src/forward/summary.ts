import type { FeedResult } from "./feed_run.ts";

/** The per-feed summary table printed at the end of `courier once`. */
export function formatSummary(results: readonly FeedResult[], dryRun = false): string {
  const header = ["feed", "fetched", "new", "sent", "failed", "error"];
  const rows = results.map((r) => [
    r.feed,
    String(r.fetched),
    String(r.new),
    String(r.sent),
    String(r.failed),
    r.error ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const numeric = new Set([1, 2, 3, 4]);
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1
          ? cell
          : numeric.has(i)
          ? cell.padStart(widths[i])
          : cell.padEnd(widths[i])
      )
      .join("  ")
      .trimEnd();
  const ok = results.filter((r) => r.error === null).length;
  const sent = results.reduce((n, r) => n + r.sent, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  const refused = results.reduce((n, r) => n + r.refused, 0);
  const totals = `${results.length} feeds: ${ok} ok, ${results.length - ok} failed; ` +
    `${sent} ${dryRun ? "would be sent" : "sent"}` +
    (skipped > 0 ? `, ${skipped} older entries skipped at first sighting` : "") +
    (refused > 0 ? `, ${refused} refused by the messenger (see the log)` : "");
  return [line(header), ...rows.map(line), "", totals].join("\n");
}

/** One progress line for a terminal: how far the run is. */
export function formatProgress(done: number, total: number, sent: number, failed: number): string {
  return `courier once: ${done}/${total} feeds done, ${sent} sent` +
    (failed > 0 ? `, ${failed} failed` : "");
}

/**
 * Whether the table is worth printing. From cron, any output is mailed: a run with nothing
 * sent and nothing failed prints nothing, unless asked (`--summary`) or a dry run.
 */
export function summaryWanted(
  results: readonly FeedResult[],
  options: { summary: boolean; dryRun: boolean },
): boolean {
  return options.summary || options.dryRun ||
    results.some((r) => r.sent > 0 || r.refused > 0 || r.error !== null);
}
