const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  // A few non-English abbreviations seen in the wild.
  mrz: 3,
  mär: 3,
  okt: 10,
  dez: 12,
  mai: 5,
  avr: 4,
  fév: 2,
  déc: 12,
};

/** Offsets in minutes of the zone names RFC 822 allows, and a few common ones it does not. */
const ZONES: Record<string, number> = {
  z: 0,
  ut: 0,
  utc: 0,
  gmt: 0,
  wet: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  akst: -540,
  akdt: -480,
  hst: -600,
  bst: 60,
  cet: 60,
  cest: 120,
  met: 60,
  mest: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  ist: 330,
  jst: 540,
  kst: 540,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
};

function monthNumber(name: string): number | undefined {
  return MONTHS[name.slice(0, 3).toLowerCase()];
}

/** Minutes east of UTC for a zone text, or undefined when unreadable. Empty means UTC. */
function zoneOffset(zone: string): number | undefined {
  const z = zone.trim().replace(/\s*\(.*\)$/, "").replace(/^\(|\)$/g, "");
  if (z === "") return 0;
  const named = ZONES[z.toLowerCase()];
  if (named !== undefined) return named;
  const m = z.match(/^(?:gmt|utc|ut)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$/i);
  if (m) {
    const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
    return m[1] === "-" ? -minutes : minutes;
  }
  // Military single letters are too often wrong to trust; read them as UTC like feedparser.
  if (/^[a-z]$/i.test(z)) return 0;
  return undefined;
}

function build(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
  offsetMinutes: number,
): Date | null {
  if (
    month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60 ||
    year < 1800 || year > 9999
  ) return null;
  // From 1800 on, so Date.UTC never reads the year as 1900 + a two-digit one.
  const t = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), millis) -
    offsetMinutes * 60_000;
  return Number.isFinite(t) ? new Date(t) : null;
}

/**
 * Year, month and day with dashes (one or two digits each) or none (two digits each): without
 * separators the digits must fill the fields, or "200212" would read as 2 January.
 */
const ISO =
  /^(\d{4})(?:-(\d{1,2})-(\d{1,2})|(\d{2})(\d{2}))(?:(?:T|\s+|t)(\d{1,2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?\s*(z|utc|gmt|[+-]\d{1,2}(?::?\d{2})?)?$/i;
/**
 * W3CDTF's reduced precision: a year and month ("2002-12"), or a year alone. The first of that
 * month (of January), as feedparser reads it; a zone written after it changes no day.
 */
const W3C_REDUCED = /^(\d{4})(?:-(\d{1,2}))?\s*(?:z|utc|gmt|[+-]\d{1,2}(?::?\d{2})?)?$/i;
const RFC822 =
  /^(?:[^\d\s,]+\.?,?\s*)?(\d{1,2})(?:st|nd|rd|th)?[\s-]+([^\d\s,.-]+)\.?,?[\s-]+(\d{2,4}),?(?:[\sT]+(\d{1,2})[:.](\d{2})(?:[:.](\d{2})(?:\.(\d+))?)?)?\s*(.*)$/;
/**
 * Day, month and year with dots, as Europe writes them ("10.06.2003 04:00"): day first
 * wherever dots are used, so never handed to Date.parse, which reads them month first.
 */
const DOTTED =
  /^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2}),?(?:[\sT]+(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?)?\s*(.*)$/;
const MONTH_FIRST =
  /^(?:[^\d\s,]+,?\s+)?([^\d\s,.]+)\.?\s+(\d{1,2}),?\s+(\d{4}),?(?:\s+(?:at\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]\.?m\.?)?)?\s*(.*)$/i;

/**
 * The year a text writes: two digits are 1950-2049 (RFC 822's years); four are what they say,
 * so "0099" is the year 99, which build refuses rather than read as 1999.
 */
function fullYear(text: string): number {
  const year = Number(text);
  return text.length === 2 ? year + (year < 50 ? 2000 : 1900) : year;
}

/** build() with the hour, minute and second a pattern matched from group `at` on (0 if absent). */
function buildAt(
  year: number,
  month: number,
  day: number,
  m: RegExpMatchArray,
  at: number,
  millis: number,
  offset: number,
): Date | null {
  const [hour, minute, second] = [m[at], m[at + 1], m[at + 2]].map((g) => Number(g ?? 0));
  return build(year, month, day, hour, minute, second, millis, offset);
}

/**
 * Reads a feed date: RFC 822 (RSS) and RFC 3339 (Atom) and the broken variants feeds really
 * publish (no zone, zone names, two-digit years, missing seconds, a space instead of `T`,
 * wrong weekday, month first). Returns null when the text is not a date.
 */
export function parseDate(text: string | undefined | null): Date | null {
  if (!text) return null;
  const s = text.trim();
  if (s === "") return null;
  let m = s.match(ISO);
  if (m) {
    const offset = m[10] ? zoneOffset(m[10]) ?? 0 : 0;
    const millis = m[9] ? Math.round(Number(`0.${m[9]}`) * 1000) : 0;
    const month = Number(m[2] ?? m[4]), day = Number(m[3] ?? m[5]);
    return buildAt(Number(m[1]), month, day, m, 6, millis, offset);
  }
  m = s.match(W3C_REDUCED);
  if (m) return build(Number(m[1]), Number(m[2] ?? 1), 1, 0, 0, 0, 0, 0);
  m = s.match(RFC822);
  if (m) {
    const month = monthNumber(m[2]);
    const offset = zoneOffset(m[8]);
    if (month !== undefined && offset !== undefined) {
      return buildAt(fullYear(m[3]), month, Number(m[1]), m, 4, 0, offset);
    }
  }
  m = s.match(MONTH_FIRST);
  if (m) {
    const month = monthNumber(m[1]);
    const offset = zoneOffset(m[8]);
    if (month !== undefined && offset !== undefined) {
      let hour = Number(m[4] ?? 0);
      const ampm = m[7]?.toLowerCase().replace(/\./g, "");
      if (ampm === "pm" && hour < 12) hour += 12;
      if (ampm === "am" && hour === 12) hour = 0;
      return build(
        Number(m[3]),
        month,
        Number(m[2]),
        hour,
        Number(m[5] ?? 0),
        Number(m[6] ?? 0),
        0,
        offset,
      );
    }
  }
  m = s.match(DOTTED);
  if (m) {
    const offset = zoneOffset(m[7]);
    if (offset === undefined) return null;
    return buildAt(fullYear(m[3]), Number(m[2]), Number(m[1]), m, 4, 0, offset);
  }
  // Last resort: whatever the JavaScript engine understands, if it names a year; never a
  // number with dots, which it reads month first.
  if (/\d{4}/.test(s) && !/^\d{1,2}\.\d{1,2}\./.test(s)) {
    const t = Date.parse(s);
    // The years build takes: "200212" or "12345" is no year 200212.
    if (t >= YEAR_1800 && t < YEAR_10000) return new Date(t);
  }
  return null;
}

/** 10000-01-01T00:00:00Z: four-digit years end before it. */
const YEAR_10000 = 253_402_300_800_000;
/** 1800-01-01T00:00:00Z: no feed means a date before it (see build). */
const YEAR_1800 = -5_364_662_400_000;
