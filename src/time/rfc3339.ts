/**
 * RFC 3339 text of a time: in UTC (`Z`), or at `offsetMinutes` east of UTC with that offset
 * (local time: `-date.getTimezoneOffset()`); fractional seconds only when there are some, and
 * never with `wholeSeconds`.
 */
export function formatRfc3339(
  date: Date,
  options: { offsetMinutes?: number; wholeSeconds?: boolean } = {},
): string {
  const offset = options.offsetMinutes ?? 0;
  let t = date.getTime();
  if (options.wholeSeconds) t -= ((t % 1000) + 1000) % 1000;
  const iso = new Date(t + offset * 60_000).toISOString();
  const text = iso.endsWith(".000Z") ? iso.slice(0, -5) : iso.slice(0, -1);
  if (offset === 0) return `${text}Z`;
  const pad = (n: number) => String(n).padStart(2, "0");
  const abs = Math.abs(offset);
  return `${text}${offset > 0 ? "+" : "-"}${pad(Math.trunc(abs / 60))}:${pad(abs % 60)}`;
}
