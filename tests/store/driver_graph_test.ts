/**
 * The forwarder's commands keep their state through node:sqlite (src/store/sqlite.ts): loading
 * libSQL took ~48 ms of every steady-state `once`. This holds the line: on a local file neither
 * `once` nor `forward` loads a libSQL package (the remote client, src/store/remote.ts, is
 * imported only when `db_url` is set), and no command uses the native `libsql` package for the
 * state: `status` reads it through the store's own clients.
 */
import assert from "node:assert/strict";
import { specifiersLoadedBy, staticSpecifiersLoadedBy } from "../support/module_graph.ts";

const isLibsql = (specifier: string) => /^npm:\/?(@libsql\/|libsql@)/.test(specifier);
const isNativeLibsql = (specifier: string) => /^npm:\/?libsql@/.test(specifier);

Deno.test("once, forward and status load no libSQL package for a local file", async () => {
  for (const command of ["src/cli/once.ts", "src/cli/forward.ts", "src/cli/status.ts"]) {
    const loaded = await staticSpecifiersLoadedBy(command);
    // The graph is really read: the store's local driver is in it.
    assert.ok(
      [...loaded].some((s) => s.endsWith("/src/store/sqlite.ts")),
      `${command}: the store's driver is not in its graph`,
    );
    assert.deepEqual([...loaded].filter(isLibsql), [], command);
    // With db_url the remote client is reachable, through the dynamic import.
    const all = await specifiersLoadedBy(command);
    assert.ok(
      [...all].some((s) =>
        s.startsWith("npm:/@libsql/client") || s.startsWith("npm:@libsql/client")
      ),
      command,
    );
    assert.deepEqual([...all].filter(isNativeLibsql), [], `${command}: the native libsql package`);
  }
});
