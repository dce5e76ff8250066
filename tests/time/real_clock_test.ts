/**
 * The real clock's timers (realClock) behave as the rest of courier expects: a pending
 * one keeps its process alive and fires, a cleared one neither fires nor holds the process,
 * and they fire in time order. Each case runs in a process of its own, because what
 * keeps a process alive is only seen by its ending.
 */
import assert from "node:assert/strict";
import { realClock } from "../../src/time/clock.ts";

const CLOCK = new URL("../../src/time/clock.ts", import.meta.url).href;

/** Runs `body` (with `clock` in scope) in a new process; its stdout, once it ends by itself. */
async function inProcess(body: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", `import { realClock as clock } from "${CLOCK}";\n${body}`],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A process held by a timer that should be gone would never end: a failure, not a hang.
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const out = await child.output();
  clearTimeout(guard);
  assert.equal(out.signal, null, "the process had to be killed: a timer held it");
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test("real clock: a pending timer keeps the process alive and fires; timers fire in time order", async () => {
  const out = await inProcess(`
    clock.setTimeout(() => console.log("b"), 60);
    clock.setTimeout(() => console.log("a"), 20);
    clock.setTimeout(() => console.log("c"), 120.4);
  `);
  assert.equal(out, "a\nb\nc\n");
});

Deno.test("real clock: a cleared timer neither fires nor holds the process", async () => {
  const out = await inProcess(`
    const never = clock.setTimeout(() => console.log("never"), 600_000);
    const also = clock.setTimeout(() => console.log("never either"), 40);
    clock.setTimeout(() => {
      clock.clearTimeout(also);
      console.log("cleared");
    }, 10);
    clock.clearTimeout(never);
    clock.clearTimeout(undefined);
  `);
  assert.equal(out, "cleared\n");
});

Deno.test("real clock: a zero or negative wait fires on a later turn, not at once", async () => {
  const fired: string[] = [];
  const done = new Promise<void>((resolve) => {
    realClock.setTimeout(() => fired.push("zero"), 0);
    realClock.setTimeout(() => {
      fired.push("negative");
      resolve();
    }, -5);
  });
  assert.deepEqual(fired, []);
  await done;
  assert.deepEqual(fired, ["zero", "negative"]);
});
