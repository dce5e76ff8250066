/**
 * What `courier browse` writes to its own stderr when a download ends early: Deno's server logs
 * the error that fails the transfer, and that log must be one line naming why, never an Error
 * with a stack of our internals.
 */
import assert from "node:assert/strict";
import { readUntilServing } from "../support/browse_process.ts";
import { stopChild, withinChild } from "../support/child.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const ENDLESS =
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n, printf('%.100c', 'n') FROM c";

Deno.test("browse: a download cut by the time limit is logged as one line, without a stack", async () => {
  const dir = await Deno.makeTempDir({ prefix: "browse_log_" });
  const db = `${dir}/empty.db`;
  await Deno.writeFile(db, new Uint8Array());
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "browse", db, "--port", "0", "--timeout", "300ms"],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const { url } = await withinChild(
      child,
      "browse serving",
      readUntilServing(reader, () => stderr),
    );
    reader.releaseLock();
    const res = await fetch(`${url}api/query?format=csv&query=${encodeURIComponent(ENDLESS)}`);
    assert.equal(res.status, 200);
    // The transfer fails: the time limit cut the file short.
    await assert.rejects(res.arrayBuffer());
  } finally {
    await stopChild(child);
    await child.stdout.cancel().catch(() => {});
  }
  const log = await stderr;
  assert.match(log, /^\[courier browse: a download ended early: .*time limit.*\]$/m);
  assert.doesNotMatch(log, /^\s+at /m, log);
  await Deno.remove(dir, { recursive: true });
});
