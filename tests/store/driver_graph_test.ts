/**
 * The forwarder's commands keep their state through node:sqlite (src/store/sqlite.ts): loading
 * libSQL took ~48 ms of every steady-state `once`. This holds the line: neither `once` nor
 * `forward` can reach the libSQL packages, while `browse` and `status` (which read any
 * database, remote ones too) still do.
 */
import assert from "node:assert/strict";
import { specifiersLoadedBy } from "../support/module_graph.ts";

const isLibsql = (specifier: string) => /^npm:\/?(@libsql\/|libsql@)/.test(specifier);

Deno.test("once and forward load no libSQL package; browse and status do", async () => {
  for (const command of ["src/cli/once.ts", "src/cli/forward.ts"]) {
    const loaded = await specifiersLoadedBy(command);
    // The graph is really read: the store and its driver are in it.
    assert.ok(
      [...loaded].some((s) => s.endsWith("/src/store/sqlite.ts")),
      `${command}: the store's driver is not in its graph`,
    );
    assert.deepEqual([...loaded].filter(isLibsql), [], command);
  }
  for (const command of ["src/cli/browse.ts", "src/cli/status.ts"]) {
    const loaded = await specifiersLoadedBy(command);
    assert.ok([...loaded].some(isLibsql), `${command} should reach libSQL`);
  }
});
