/**
 * The query worker for a remote database, as `deno run` starts it: worker.ts with the client
 * (sql/remote.ts) in its module graph from the start. Deno loads a module its graph did not
 * hold at start-up (a dynamic import: deno.json asks for lazy-dynamic-imports) only with read
 * access to the file, and a remote database's worker may read no file at all.
 */
import "../sql/remote.ts";
import { runWorker } from "./worker.ts";

if (import.meta.main) {
  await runWorker();
}
