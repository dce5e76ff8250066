/**
 * Smoke test of `deno task compile`. `deno compile` needs Deno's runtime (denort), which it
 * downloads on first use; where that is impossible the test says so and is skipped.
 */
import { join } from "node:path";
import { assertEquals } from "./support/assert.ts";
import { smokeTest } from "./support/binary_smoke.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The binary's V8 flags, as deno.json's compile task gives them. */
function binaryV8Flags(): string[] {
  const task = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks.compile as string;
  return task.split(" ").filter((arg) => arg.startsWith("--v8-flags="));
}

function denortAvailable(): string | null {
  const explicit = Deno.env.get("DENORT_BIN");
  if (explicit) return `DENORT_BIN=${explicit}`;
  const home = Deno.env.get("DENO_DIR") ??
    join(Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/", ".cache"), "deno");
  const version = Deno.version.deno;
  const zip = join(home, "dl", "release", `v${version}`, `denort-${Deno.build.target}.zip`);
  try {
    Deno.statSync(zip);
    return zip;
  } catch {
    return null;
  }
}

const runtime = denortAvailable();
if (runtime === null) {
  console.log(
    "compile smoke test SKIPPED: Deno's runtime (denort) is neither in DENORT_BIN nor in " +
      "Deno's cache, and this network cannot download it.",
  );
}

Deno.test({
  name: runtime ? "compile: the binary runs" : "compile: SKIPPED, denort not available",
  ignore: runtime === null,
  async fn() {
    const out = join(await Deno.makeTempDir(), "courier");
    const compile = await new Deno.Command(Deno.execPath(), {
      args: ["compile", "--allow-all", ...binaryV8Flags(), "--output", out, "main.ts"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(compile.code, 0, new TextDecoder().decode(compile.stderr));
    // The release workflow runs the same smoke test on each system's binary.
    await smokeTest(out);
  },
});
