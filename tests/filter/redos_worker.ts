/**
 * Judges an entry with a catastrophic-backtracking filter in a worker of its own, so that the
 * test's deadline can fail a hang by name (a hang on the test's own thread would block it).
 */
import { judge } from "../../src/filter/filter.ts";
import { compilePattern, type Pattern } from "../../src/filter/pattern.ts";
import { loadRegexEngine } from "../../src/filter/regex.ts";

await loadRegexEngine();
const compiled = (item: string) => compilePattern(item) as Pattern;
const verdict = judge(
  {
    include: [compiled("/(a+)+$/")],
    exclude: [compiled("/(x+x+)+y/")],
    fields: ["title", "summary"],
  },
  {
    id: "hostile",
    link: null,
    title: "a".repeat(100_000) + "!",
    published: null,
    updated: null,
    summary: "x".repeat(50_000),
  },
);
(self as unknown as { postMessage(data: unknown): void }).postMessage(verdict);
