import assert from "node:assert/strict";
import { collectGarbage } from "../../src/forward/collect_garbage.ts";

Deno.test("collectGarbage: a full collection is available under Deno and frees what is unreachable", () => {
  let junk: unknown[] | null = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `entry ${i}` }));
  const held = Deno.memoryUsage().heapUsed;
  assert.ok(junk.length > 0);
  junk = null;
  assert.equal(collectGarbage(), true);
  const after = Deno.memoryUsage().heapUsed;
  // 300,000 small objects are well over 10 MB of heap; a full collection frees them all.
  assert.ok(held - after > 10 * 1024 * 1024, `heap used ${held} → ${after}`);
});
