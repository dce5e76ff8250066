/**
 * The suite's guard against hanging on a child: a process that ignores SIGTERM (as a tinyproxy
 * once missed one) is killed after the grace period, and a wait on a silent child ends by its
 * bound, naming what it waited for.
 */
import assert from "node:assert/strict";
import { stopChild, withinChild } from "./support/child.ts";

/**
 * A child that ignores SIGTERM (the ignored disposition survives exec), once it has said so on
 * stdout, and then prints nothing.
 */
async function deaf(): Promise<Deno.ChildProcess> {
  const child = new Deno.Command("sh", {
    args: ["-c", 'trap "" TERM; echo deaf; exec sleep 600'],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  assert.ok(!(await reader.read()).done, "the child set its trap");
  reader.releaseLock();
  return child;
}

Deno.test("stopChild: a child that ignores SIGTERM is killed after the grace period", async () => {
  const child = await deaf();
  const status = await stopChild(child, "SIGTERM", 300);
  assert.equal(status.signal, "SIGKILL");
  await child.stdout.cancel();
});

Deno.test("stopChild: a child that exits on SIGTERM is not sent SIGKILL", async () => {
  const child = new Deno.Command("sleep", { args: ["600"], stdin: "null", stdout: "null" })
    .spawn();
  const status = await stopChild(child);
  assert.equal(status.signal, "SIGTERM");
  // Safe on a child that has exited.
  assert.equal((await stopChild(child)).signal, "SIGTERM");
});

Deno.test("withinChild: a wait on a silent child fails by its bound, naming it, and kills it", async () => {
  const child = await deaf();
  const reader = child.stdout.getReader();
  await assert.rejects(
    withinChild(child, "the ready line", reader.read(), 300),
    /the ready line: not within 0\.3 s; the process was killed/,
  );
  assert.equal((await child.status).signal, "SIGKILL");
  reader.releaseLock();
  await child.stdout.cancel();
});
