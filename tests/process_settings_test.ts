/**
 * V8 and malloc settings are given where a process starts, one set for every command: the
 * binary's `--v8-flags` (deno.json's compile task) are the same in the courier task, the
 * README's alias for running from source, the container's build and the release workflow's, and the unit and the image set the same
 * MALLOC_ARENA_MAX. The product sets none of them itself.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFileSync(new URL(path, ROOT));
const flagsIn = (text: string) => [...text.matchAll(/--v8-flags=(\S+)/g)].map((m) => m[1]);

const tasks = JSON.parse(read("deno.json")).tasks as Record<string, string>;
const [binary] = flagsIn(tasks.compile);

Deno.test("process settings: one set of V8 flags wherever courier is built or started", () => {
  assert.ok(binary, "deno.json's compile task names --v8-flags");
  assert.deepEqual(flagsIn(tasks.courier), [binary]);
  assert.deepEqual(flagsIn(read("README.md")), [binary]);
  assert.deepEqual(flagsIn(read("Dockerfile")), [binary]);
  assert.deepEqual(flagsIn(read(".github/workflows/release.yml")), [binary]);
});

Deno.test("process settings: the unit and the image set the same malloc arenas", () => {
  const unit = /^Environment=MALLOC_ARENA_MAX=(\d+)$/m.exec(read("examples/courier.service"));
  const image = /^ENV .*\bMALLOC_ARENA_MAX=(\d+)\b/m.exec(read("Dockerfile"));
  assert.ok(unit && image);
  assert.equal(unit[1], image[1]);
});

Deno.test("process settings: src/ sets no V8 flag, loads no libc and turns on no GC at run time", () => {
  const found: string[] = [];
  const walk = (dir: URL) => {
    for (const entry of Deno.readDirSync(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) walk(url);
      else if (
        /(dlopen|execv|setFlagsFromString|expose-gc|DENO_V8_FLAGS",)/.test(
          Deno.readTextFileSync(url),
        )
      ) {
        found.push(url.pathname);
      }
    }
  };
  walk(new URL("src/", ROOT));
  assert.deepEqual(found, []);
});

/**
 * The young generation V8 grows to under `flags`, in MiB: garbage made fast enough that the new
 * space reaches its largest size. (`--optimize-for-size` implies a 1 MB semi-space and overrode
 * the `--max-semi-space-size=2` written beside it.)
 */
async function newSpaceMiB(flags: string): Promise<number> {
  const code = `import v8 from "node:v8";
    let keep = [];
    for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 1000) keep = []; }
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    console.log(space.space_size / 2 ** 20);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `--v8-flags=${flags}`, code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return Number(new TextDecoder().decode(out.stdout).trim());
}

Deno.test("process settings: no flag of the binary's set overrides its young-generation size", async () => {
  const semi = /--max-semi-space-size=\d+/.exec(binary)?.[0];
  assert.ok(semi, "the binary's flags bound the young generation");
  assert.equal(await newSpaceMiB(binary), await newSpaceMiB(semi));
});
