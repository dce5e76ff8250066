/**
 * Which local modules a command loads, read from `deno info --json`: the static graph of
 * main.ts plus everything (static or dynamic) under the command's lazily imported runner.
 */

import { runWithin } from "./child.ts";

interface Dependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  dependencies?: Dependency[];
}

const MAIN = new URL("../../main.ts", import.meta.url);

async function moduleGraph(): Promise<Map<string, Dependency[]>> {
  const output = await runWithin(Deno.execPath(), { args: ["info", "--json", MAIN.pathname] });
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: InfoModule[] };
  return new Map(info.modules.map((m) => [m.specifier, m.dependencies ?? []]));
}

function closure(
  graph: Map<string, Dependency[]>,
  root: string,
  follow: (d: Dependency) => boolean,
): Set<string> {
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const d of graph.get(at) ?? []) {
      if (d.code && follow(d)) stack.push(d.code.specifier);
    }
  }
  return seen;
}

/**
 * The local modules `courier <command>` can load, as paths relative to the repository root.
 * `commandFile` is the command's descriptor (e.g. src/cli/once.ts), whose dynamic imports are
 * its implementation.
 */
export async function modulesLoadedBy(commandFile: string): Promise<Set<string>> {
  const root = new URL("../../", import.meta.url).href;
  const loaded = await specifiersLoadedBy(commandFile);
  return new Set(
    [...loaded].filter((s) => s.startsWith(root)).map((s) => s.slice(root.length)),
  );
}

/**
 * Every module `courier <command>` can load, local (`file:` URLs) and npm (`npm:name@version`
 * as imported), by the same rule as modulesLoadedBy.
 */
export function specifiersLoadedBy(commandFile: string): Promise<Set<string>> {
  return loadedBy(commandFile, () => true);
}

/**
 * What `courier <command>` loads before its runner imports anything on its own: main.ts's
 * static graph plus the runner's static graph (a dynamic import inside the runner, such as
 * the remote store client, is left out: it is loaded only when that path is taken).
 */
export function staticSpecifiersLoadedBy(commandFile: string): Promise<Set<string>> {
  return loadedBy(commandFile, (d) => !d.isDynamic);
}

/** main.ts's static graph plus the runner's, following `inRunner` inside the runner. */
async function loadedBy(
  commandFile: string,
  inRunner: (d: Dependency) => boolean,
): Promise<Set<string>> {
  const graph = await moduleGraph();
  const root = new URL("../../", import.meta.url).href;
  const descriptor = new URL(commandFile, root).href;
  if (!graph.has(descriptor)) throw new Error(`${commandFile} is not reachable from main.ts`);
  const loaded = closure(graph, MAIN.href, (d) => !d.isDynamic);
  for (const d of graph.get(descriptor)!) {
    if (d.code && d.isDynamic) {
      for (const m of closure(graph, d.code.specifier, inRunner)) loaded.add(m);
    }
  }
  return loaded;
}
