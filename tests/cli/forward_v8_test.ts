/**
 * `courier forward` runs with its V8 flags (src/cli/browse_v8.ts, FORWARD_V8_FLAGS): it
 * re-executes itself with them in DENO_V8_FLAGS, keeping its process id, and forwards as usual.
 */
import assert from "node:assert/strict";
import { stringify } from "yaml";
import { FORWARD_ENV, FORWARD_V8_FLAGS } from "../../src/cli/browse_v8.ts";
import { startForward } from "../support/forward_process.ts";

const linuxOnly = Deno.build.os !== "linux";

async function v8FlagsOfForward(env: Record<string, string>) {
  const dir = await Deno.makeTempDir();
  const config = `${dir}/config.yml`;
  await Deno.writeTextFile(
    config,
    stringify({
      messenger_auth_token: "123456:TEST-token_v8",
      data_dir: `${dir}/data`,
      // Runs once at start (it never succeeded) and fails against a closed port: harmless.
      feeds: [{
        name: "yearly",
        channel: "@c",
        url: "http://127.0.0.1:9/x.xml",
        cron: "0 0 1 1 *",
        type: "rss",
      }],
    }),
  );
  const forward = startForward(["-c", config, "--messenger-api", "http://127.0.0.1:9"], env);
  try {
    await forward.until("msg=forwarding");
    const environ = Deno.readTextFileSync(`/proc/${forward.pid}/environ`).split("\0");
    const value = (name: string) =>
      environ.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
    return { v8: value("DENO_V8_FLAGS"), arenas: value("MALLOC_ARENA_MAX") };
  } finally {
    const { code, log } = await forward.stop();
    assert.equal(code, 0, log);
    assert.equal(log.split("msg=forwarding").length - 1, 1, "the start-up is logged once");
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "courier forward: the process runs with the small, size-optimised heap",
  ignore: linuxOnly,
  async fn() {
    assert.deepEqual(await v8FlagsOfForward({}), {
      v8: FORWARD_V8_FLAGS,
      arenas: FORWARD_ENV.MALLOC_ARENA_MAX,
    });
  },
});

Deno.test({
  name: "courier forward: a user's own young-generation flag is kept as it is",
  ignore: linuxOnly,
  async fn() {
    const own = "--max-semi-space-size=8";
    // Not re-executed: nothing of ours is added.
    assert.deepEqual(await v8FlagsOfForward({ DENO_V8_FLAGS: own }), {
      v8: own,
      arenas: undefined,
    });
  },
});
