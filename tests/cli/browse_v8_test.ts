import assert from "node:assert/strict";
import { keepProcessReason, SERVER_V8_FLAGS } from "../../src/cli/browse_v8.ts";
import { makeFixtureDb } from "../support/browse_fixtures.ts";
import { readUntilServing } from "../support/browse_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const linuxOnly = Deno.build.os !== "linux";

Deno.test("browse V8 flags: when the server re-executes itself, and when it keeps its process", () => {
  assert.equal(keepProcessReason("linux", undefined, "granted"), null);
  assert.equal(keepProcessReason("linux", "--stack-size=2000", "granted"), null);
  assert.match(keepProcessReason("darwin", undefined, "granted")!, /not Linux/);
  assert.match(keepProcessReason("linux", undefined, "prompt")!, /FFI/);
  assert.match(keepProcessReason("linux", undefined, "denied")!, /FFI/);
  // Its own flags after the exec (no loop), or the user's choice of a young generation.
  assert.match(keepProcessReason("linux", SERVER_V8_FLAGS, "granted")!, /already/);
  assert.match(keepProcessReason("linux", "--foo,--max-semi-space-size=8", "granted")!, /already/);
  assert.equal(keepProcessReason("linux", "--max-semi-space-size-x=8", "granted"), null);
});

/** Starts `courier browse DB --port 0` with `deno run FLAGS`; resolves once it serves. */
async function serve(db: string, denoFlags: string[], env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...denoFlags, "--quiet", MAIN, "browse", db, "--port", "0"],
    stdout: "piped",
    stderr: "null",
    stdin: "null",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { url, seen } = await readUntilServing(reader, () => Promise.resolve("(stderr not kept)"));
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  const environ = Deno.readTextFileSync(`/proc/${child.pid}/environ`).split("\0");
  const v8 = environ.find((e) => e.startsWith("DENO_V8_FLAGS="))?.slice("DENO_V8_FLAGS=".length);
  const res = await fetch(`${url}api/query?query=${encodeURIComponent("SELECT 1 AS one")}`);
  const body = await res.json();
  child.kill("SIGTERM");
  const status = await child.status;
  return { v8, status: res.status, body, code: status.code, lines: seen.trim().split("\n") };
}

Deno.test({
  name: "courier browse: the server process itself runs with the small young generation",
  ignore: linuxOnly,
  async fn() {
    const db = await makeFixtureDb();
    const r = await serve(db, ["--allow-all"]);
    // The process the user started (same id) serves, with the flags in its environment.
    assert.equal(r.v8, SERVER_V8_FLAGS);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.rows, [[1]]);
    // The serving line is printed once, by the process that serves.
    assert.equal(r.lines.length, 1);
    assert.equal(r.code, 0);
  },
});

Deno.test({
  name: "courier browse: a user's own young-generation flag is kept; other flags get ours added",
  ignore: linuxOnly,
  async fn() {
    const db = await makeFixtureDb();
    const own = await serve(db, ["--allow-all"], { DENO_V8_FLAGS: "--max-semi-space-size=4" });
    assert.equal(own.v8, "--max-semi-space-size=4");
    assert.equal(own.status, 200);
    const other = await serve(db, ["--allow-all"], { DENO_V8_FLAGS: "--stack-size=1000" });
    assert.equal(other.v8, `--stack-size=1000,${SERVER_V8_FLAGS}`);
    assert.equal(other.status, 200);
  },
});

Deno.test({
  name: "courier browse: without FFI permission the server serves as it was started",
  ignore: linuxOnly,
  async fn() {
    const db = await makeFixtureDb();
    const perms = ["read", "write", "net", "env", "run", "sys"].map((p) => `--allow-${p}`);
    const r = await serve(db, perms);
    assert.equal(r.v8, undefined);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.rows, [[1]]);
  },
});
