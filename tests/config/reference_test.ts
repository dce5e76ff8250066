import { configReference } from "../../src/config/reference.ts";
import { assertEquals } from "../support/assert.ts";

/** Markdown as `deno fmt` leaves it: the form the committed file is kept in. */
async function formatted(markdown: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    // deno.json's fmt options (lineWidth 100) apply, wherever the test is run from.
    cwd: new URL("../../", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(markdown));
  await writer.close();
  const out = await child.output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test("docs/config-reference.md is the one generated from the field tables", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../docs/config-reference.md", import.meta.url),
  );
  // When this fails: deno run src/config/reference.ts > docs/config-reference.md
  // && deno fmt docs/config-reference.md
  assertEquals(committed, await formatted(configReference()));
});
