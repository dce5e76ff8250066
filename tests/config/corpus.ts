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
