/**
 * A full garbage collection, for a long-lived process right after a burst of short-lived
 * allocation (loading a large config). V8 keeps the pages such a burst grew the heap to until
 * it has been idle for a while (minutes, for a large config: bench/NOTES.md); one full
 * collection gives them back at once. `--expose-gc` can be turned on
 * at run time through node:v8, and the `gc` function it adds is read from a new context.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | null | undefined;

/** Collects garbage now; false when the runtime does not allow it (nothing happens then). */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const found = runInNewContext("typeof gc === 'function' ? gc : null");
      gc = typeof found === "function" ? found as () => void : null;
    } catch {
      gc = null;
    }
  }
  if (gc === null) return false;
  gc();
  return true;
}
