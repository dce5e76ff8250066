/**
 * ARCHITECTURE.md's rules hold: the page's "Rules" section is read (the folder order, the folders
 * browse/ must not import, the folders at the bottom) and every import between folders of src/
 * in the module graph (`deno info --json`, static and dynamic, of main.ts and the demo) is held
 * to it, and no two folders import each other, directly or around a cycle.
 */
import { assert } from "./support/assert.ts";
import { runWithin } from "./support/child.ts";

const ROOT = new URL("../", import.meta.url);
const SRC = new URL("src/", ROOT).href;
const page = Deno.readTextFileSync(new URL("ARCHITECTURE.md", ROOT));
const rules = page.slice(page.indexOf("\n## Rules"));

/** The folders written in backticks on a line, `name/` → name. */
const foldersOf = (line: string) => [...line.matchAll(/`([a-z]+)\/`/g)].map((m) => m[1]);

/** The text of the rule (a bullet, with its wrapped lines) that starts with `label`. */
function ruleLine(label: string): string {
  const bullet = rules.split(/\n(?=- )/).find((b) => b.startsWith(`- **${label}`));
  assert(bullet !== undefined, `ARCHITECTURE.md's Rules lost "${label}"`);
  return bullet.split(/\n\s*\n/)[0];
}

/** Folder → its rank in the order (1 at the bottom). */
const rank = new Map<string, number>();
for (const m of rules.matchAll(/^ {2,}(\d+)\. (.*)$/gm)) {
  for (const folder of foldersOf(m[2])) rank.set(folder, Number(m[1]));
}
const notForBrowse = foldersOf(ruleLine("`browse/` is independent of forwarding").split(":")[1]);
const bottom = foldersOf(ruleLine("`time/` and `log/` are at the bottom").split(":")[0]);

/** Every import from one folder of src/ to another: "from → to" with the files. */
async function folderImports(): Promise<Map<string, string[]>> {
  const edges = new Map<string, string[]>();
  for (const entry of ["main.ts", "src/demo/main.ts"]) {
    const out = await runWithin(Deno.execPath(), {
      args: ["info", "--json", new URL(entry, ROOT).pathname],
    });
    assert(out.success, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: {
        specifier: string;
        dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
      }[];
    };
    for (const module of info.modules) {
      const from = folderOf(module.specifier);
      if (from === null) continue;
      for (const dependency of module.dependencies ?? []) {
        for (const target of [dependency.code?.specifier, dependency.type?.specifier]) {
          const to = target === undefined ? null : folderOf(target);
          if (to === null || to === from) continue;
          const files = `${module.specifier.slice(SRC.length)} → ${target!.slice(SRC.length)}`;
          const key = `${from} → ${to}`;
          edges.set(key, [...new Set([...edges.get(key) ?? [], files])]);
        }
      }
    }
  }
  return edges;
}

/** The folder of a module under src/ (`browse/http/app.ts` → browse); null elsewhere. */
function folderOf(specifier: string): string | null {
  if (!specifier.startsWith(SRC)) return null;
  const parts = specifier.slice(SRC.length).split("/");
  return parts.length > 1 ? parts[0] : null;
}

const edges = await folderImports();
const pairs = [...edges.keys()].map((key) => key.split(" → ") as [string, string]);
const show = (from: string, to: string) => `${from} → ${to} (${edges.get(`${from} → ${to}`)})`;

Deno.test("architecture rules: the page states them and the graph is read", () => {
  assert(rank.size >= 14, `the folder order names ${rank.size} folders`);
  assert(notForBrowse.includes("forward") && notForBrowse.includes("store"), `${notForBrowse}`);
  assert(bottom.join() === "time,log", `${bottom}`);
  assert(pairs.some(([from, to]) => from === "cli" && to === "forward"), "cli → forward is seen");
});

Deno.test("architecture rules: every folder of src/ has its place in the order", () => {
  const folders = [...Deno.readDirSync(new URL("src/", ROOT))]
    .filter((e) => e.isDirectory).map((e) => e.name);
  const unplaced = folders.filter((f) => !rank.has(f));
  assert(unplaced.length === 0, `not in ARCHITECTURE.md's folder order: ${unplaced}`);
});

Deno.test("architecture rules: a folder imports only folders below it in the order", () => {
  const upward = pairs.filter(([from, to]) => !(rank.get(to)! < rank.get(from)!));
  assert(
    upward.length === 0,
    `imports against the order:\n${upward.map((p) => show(...p)).join("\n")}`,
  );
});

Deno.test("architecture rules: no cycle between folders", () => {
  const next = new Map<string, string[]>();
  for (const [from, to] of pairs) next.set(from, [...next.get(from) ?? [], to]);
  const cycles: string[] = [];
  const path: string[] = [];
  const done = new Set<string>();
  const visit = (folder: string) => {
    if (path.includes(folder)) {
      cycles.push([...path.slice(path.indexOf(folder)), folder].join(" → "));
      return;
    }
    if (done.has(folder)) return;
    path.push(folder);
    for (const to of next.get(folder) ?? []) visit(to);
    path.pop();
    done.add(folder);
  };
  for (const folder of next.keys()) visit(folder);
  assert(cycles.length === 0, `folders that import each other: ${cycles.join("; ")}`);
});

Deno.test("architecture rules: browse/ imports nothing of forwarding", () => {
  const found = pairs.filter(([from, to]) => from === "browse" && notForBrowse.includes(to));
  assert(found.length === 0, found.map((p) => show(...p)).join("\n"));
});

Deno.test("architecture rules: time/ and log/ import no other folder", () => {
  const found = pairs.filter(([from]) => bottom.includes(from));
  assert(found.length === 0, found.map((p) => show(...p)).join("\n"));
});
