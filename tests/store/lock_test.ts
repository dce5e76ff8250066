import assert from "node:assert/strict";
import { acquireLock, LockError } from "../../src/store/lock.ts";

const LOCK_MODULE = new URL("../../src/store/lock.ts", import.meta.url).href;

/** Starts a process that takes the lock, prints "locked", and holds it until stdin closes. */
async function holder(dataDir: string) {
  const code = `
    import { acquireLock } from ${JSON.stringify(LOCK_MODULE)};
    const lock = await acquireLock(${JSON.stringify(dataDir)});
    console.log("locked");
    for await (const _ of Deno.stdin.readable) { /* hold */ }
    lock.release();
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  assert.equal(value?.trim(), "locked");
  return { child, reader };
}

Deno.test("a second holder is refused with the first one's pid", async () => {
  const dir = await Deno.makeTempDir();
  const { child, reader } = await holder(`${dir}/data`);
  try {
    await assert.rejects(acquireLock(`${dir}/data`), (e: Error) => {
      assert.ok(e instanceof LockError);
      assert.ok(e.message.includes(`pid ${child.pid}`), e.message);
      assert.ok(e.message.includes(`${dir}/data`));
      return true;
    });
  } finally {
    await child.stdin.close();
    await reader.cancel();
    await child.status;
  }
  // Released: now it can be taken.
  const lock = await acquireLock(`${dir}/data`);
  assert.equal(lock.takenOverFrom, null);
  lock.release();
});

Deno.test("a lock left by a killed process is taken over", async () => {
  const dir = await Deno.makeTempDir();
  const { child, reader } = await holder(dir);
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel();
  await child.stdin.close().catch(() => {});
  const lock = await acquireLock(dir);
  try {
    assert.equal(lock.takenOverFrom, child.pid);
    assert.equal((await Deno.readTextFile(lock.path)).trim(), String(Deno.pid));
  } finally {
    lock.release();
  }
});

Deno.test("within one process a second acquire is refused too", async () => {
  const dir = await Deno.makeTempDir();
  const lock = await acquireLock(dir);
  try {
    await assert.rejects(acquireLock(dir), LockError);
  } finally {
    lock.release();
  }
});
