/**
 * V8 and malloc settings are given where a process starts, one set for every command: the
 * binary's `--v8-flags` (deno.json's compile task) are the same in the courier task, the
 * container's build and the release workflow's, and the unit and the image set the same
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
