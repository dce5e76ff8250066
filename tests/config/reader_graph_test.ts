/**
 * A valid config is read without the yaml package (yaml's document, with positions, is loaded
 * only to place the problems of a config js-yaml refuses): loading it is ~25 ms of every
 * `courier once`. A value imported from the located reader's modules (validate.ts imports yaml)
 * brought it back once; this holds the line on config/load.ts's static graph.
 */
import assert from "node:assert/strict";

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

Deno.test("config: the valid-config path loads js-yaml, never yaml", async () => {
  const load = new URL("../../src/config/load.ts", import.meta.url);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", load.pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const modules = (JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] })
    .modules;
  const deps = new Map(modules.map((m) => [m.specifier, m.dependencies ?? []]));
  const seen = new Set<string>();
  const stack = [load.href];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const d of deps.get(at) ?? []) if (d.code && !d.isDynamic) stack.push(d.code.specifier);
  }
  const npm = [...seen].filter((s) => s.startsWith("npm:"));
  assert.ok(npm.some((s) => /js-yaml/.test(s)), `js-yaml is read: ${npm.join(", ")}`);
  assert.deepEqual(npm.filter((s) => /^npm:\/?yaml@/.test(s)), [], "the yaml package");
});
