/**
 * A strict little reader of the Prometheus text format (0.0.4), for tests: it throws on any
 * line a scraper would reject or misread, so a test passing means the exposition is well-formed.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  type: string;
  help: string | null;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXED = new Set(["histogram", "summary"]);

function parseValue(text: string, line: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    throw new Error(`not a number: ${JSON.stringify(line)}`);
  }
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    const name = text.slice(i, eq);
    if (eq === -1 || !LABEL_NAME.test(name) || text[eq + 1] !== '"') {
      throw new Error(`bad label in ${JSON.stringify(line)}`);
    }
    let value = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\n") throw new Error(`raw newline in ${JSON.stringify(line)}`);
      if (text[j] === "\\") {
        const next = text[++j];
        if (next === "n") value += "\n";
        else if (next === "\\" || next === '"') value += next;
        else throw new Error(`bad escape in ${JSON.stringify(line)}`);
      } else value += text[j];
    }
    if (j >= text.length) throw new Error(`unterminated label in ${JSON.stringify(line)}`);
    if (name in labels) throw new Error(`repeated label ${name} in ${JSON.stringify(line)}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ",") i++;
    else if (i < text.length) throw new Error(`bad label list in ${JSON.stringify(line)}`);
  }
  return labels;
}

/** Parses an exposition: each sample must follow its family's `# TYPE`, families contiguous. */
export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith("\n")) throw new Error("exposition must end with a line feed");
  const families = new Map<string, Family>();
  const pendingHelp = new Map<string, string>();
  let current: string | null = null;
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name)) throw new Error(`bad metric name: ${JSON.stringify(line)}`);
      if (kind === "HELP") {
        if (families.has(name) || pendingHelp.has(name)) throw new Error(`second HELP ${name}`);
        pendingHelp.set(name, rest);
        continue;
      }
      if (!TYPES.has(rest)) throw new Error(`bad type: ${JSON.stringify(line)}`);
      if (families.has(name)) throw new Error(`second TYPE for ${name}`);
      families.set(name, { type: rest, help: pendingHelp.get(name) ?? null, samples: [] });
      current = name;
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = /^([^{\s]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`bad sample line: ${JSON.stringify(line)}`);
    const [, name, labelText, valueText] = m;
    if (!NAME.test(name)) throw new Error(`bad metric name: ${JSON.stringify(line)}`);
    const family = current === null ? undefined : families.get(current)!;
    const belongs = family !== undefined &&
      (name === current ||
        (SUFFIXED.has(family.type) &&
          ["_bucket", "_sum", "_count"].some((s) => name === current + s)));
    if (!belongs) throw new Error(`sample without a preceding # TYPE: ${JSON.stringify(line)}`);
    family.samples.push({
      name,
      labels: labelText ? parseLabels(labelText, line) : {},
      value: parseValue(valueText, line),
    });
  }
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const family of families.values()) {
    for (const s of family.samples) {
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) {
        return s.value;
      }
    }
  }
  return undefined;
}
