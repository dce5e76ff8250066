import { configReference } from "../../src/config/reference.ts";
import { assert, assertEquals } from "../support/assert.ts";

/** Markdown as deno fmt leaves it, minus the padding it adds to table cells. */
function normalize(markdown: string): string[] {
  return markdown.trim().split("\n").map((line) =>
    line.startsWith("|")
      ? line.split("|").map((cell) => cell.trim().replace(/^-+$/, "---")).join("|")
      : line.trim()
  ).filter((line) => line !== "");
}

Deno.test("README: the config reference is the one generated from the field tables", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const start = "<!-- config-reference:start -->";
  const end = "<!-- config-reference:end -->";
  assert(readme.includes(start) && readme.includes(end), "markers present");
  const inside = readme.slice(readme.indexOf(start) + start.length, readme.indexOf(end));
  // When this fails: `deno run src/config/reference.ts`, paste between the markers, deno fmt.
  assertEquals(normalize(inside), normalize(configReference()));
});
