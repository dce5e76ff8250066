/** Reads the config corpus beside this file. */
export type Kind = "valid" | "invalid" | "invalid-schema-valid" | "invalid-yaml";

export interface CorpusCase {
  name: string;
  path: string;
  kind: Kind;
  /** Expected stderr lines, the file's path written as FILE. */
  messages: string[];
}

const DIR = new URL("./corpus/", import.meta.url);

export async function corpusCases(): Promise<CorpusCase[]> {
  const cases: CorpusCase[] = [];
  for await (const entry of Deno.readDir(DIR)) {
    if (!entry.name.endsWith(".yml")) continue;
    const name = entry.name.slice(0, -4);
    const [kind, ...messages] = (await Deno.readTextFile(new URL(`${name}.expect`, DIR)))
      .trimEnd().split("\n");
    cases.push({
      name,
      path: new URL(entry.name, DIR).pathname,
      kind: kind as Kind,
      messages,
    });
  }
  return cases.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Plain scalars whose reading differs between YAML schemas and parsers (numbers in every base
 * and form, booleans and nulls in every case, YAML 1.1 words, times): the readers that take
 * only valid configs must read each as yaml's core schema does, or leave it to yaml.
 */
export const CORE_SCALARS: readonly string[] = [
  "0b11",
  "1_000",
  "+12",
  "-0",
  "0o17",
  "0x1F",
  "0X1F",
  "0o8",
  ".5",
  "5.",
  "1e3",
  "+.inf",
  ".NaN",
  "010",
  "08",
  "True",
  "tRue",
  "yes",
  "off",
  "~",
  "Null",
  "nULL",
  "2024-01-01",
  "12:30",
  "-0x1F",
  "+0x1F",
  "-0o7",
  "-.5",
  "+.5",
  ".Inf",
  "-.inf",
  "+.INF",
  "1E3",
  "0.",
  "'7'",
  '"7"',
  "<<",
  "=",
];
