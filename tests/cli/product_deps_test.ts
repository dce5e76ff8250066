/**
 * Test- and bench-only packages stay out of the product: not in deno.json's import map (which
 * `deno compile` and `deno install` take whole) and not in the module graph of main.ts.
 */
import { assert, assertEquals } from "../support/assert.ts";

const ROOT = new URL("../../", import.meta.url);
const DEV_ONLY = ["ajv", "rss-parser"];

interface Info {
  modules: {
    specifier: string;
    npmPackage?: string;
    dependencies?: { specifier: string; isDynamic?: boolean }[];
  }[];
  npmPackages: Record<string, { name: string; dependencies?: string[] }>;
}

async function productInfo(): Promise<Info> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("main.ts", ROOT).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout)) as Info;
}

/** The npm packages main.ts can load (static and dynamic imports, and their dependencies). */
async function productPackages(): Promise<Set<string>> {
  const info = await productInfo();
  // `npmPackages` lists the lockfile's whole snapshot; what main.ts reaches starts at its modules.
  const stack = info.modules.flatMap((m) => m.npmPackage ? [m.npmPackage] : []);
  const seen = new Set<string>();
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...info.npmPackages[id]?.dependencies ?? []);
  }
  return new Set([...seen].map((id) => info.npmPackages[id]?.name ?? id));
}

Deno.test("product: the test-only SQLite drivers are not in the import map", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const keys = Object.keys(config.imports as Record<string, string>);
  // The product's remote client is @libsql/client/web; tests import the others by npm: specifier.
  assertEquals(keys.filter((key) => key === "libsql" || key === "@libsql/client"), []);
});

Deno.test("product: ajv and rss-parser are in neither the import map nor main.ts's graph", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const mapped = Object.entries(config.imports as Record<string, string>)
    .filter(([key, target]) => DEV_ONLY.some((p) => key.startsWith(p) || target.includes(p)));
  assertEquals(mapped, []);
  const packages = await productPackages();
  // The graph is really read: the product's own parser is in it.
  assert(packages.has("htmlparser2") && packages.has("js-yaml"), [...packages].join(", "));
  assertEquals(DEV_ONLY.filter((p) => packages.has(p)), []);
});
