/**
 * The config corpus: every file in corpus/ is run through the real CLI and must give exactly
 * the exit code and messages its `.expect` file states (first line: the kind; then the
 * expected stderr lines with the path written as FILE).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { runCli } from "../support/cli.ts";
import { corpusCases } from "./corpus.ts";

const SECRETS = ["AAH-token_x", "secret", "pa%40ss", "pa@ss"];

for (const c of await corpusCases()) {
  Deno.test(`corpus: ${c.name} is ${c.kind}`, async () => {
    const result = await runCli(["validate", "-c", c.path]);
    const stderr = result.stderr.trimEnd().replaceAll(c.path, "FILE");
    assertEquals(result.code, c.kind === "valid" ? 0 : 2, stderr);
    assertEquals(stderr === "" ? [] : stderr.split("\n"), c.messages);
    if (c.kind === "valid") assert(result.stdout.includes(": valid, "), result.stdout);
    for (const line of c.messages) {
      assert(/^FILE(:\d+:\d+)?: /.test(line), `names file and place: ${line}`);
    }
    for (const secret of SECRETS) {
      assert(!result.stdout.includes(secret), `stdout leaks ${secret}`);
      assert(!result.stderr.includes(secret), `stderr leaks ${secret}`);
    }
    assert(!/^\s+at /m.test(result.stderr), "no stack trace");
  });
}

Deno.test("corpus: has at least 40 configs, valid and invalid", async () => {
  const cases = await corpusCases();
  assert(cases.length >= 40, `${cases.length} cases`);
  assert(cases.filter((c) => c.kind === "valid").length >= 10);
  assert(cases.filter((c) => c.kind !== "valid").length >= 30);
});

Deno.test("corpus: every invalid config names a key path and a line", async () => {
  for (const c of await corpusCases()) {
    if (c.kind !== "invalid" && c.kind !== "invalid-schema-valid") continue;
    for (const line of c.messages) {
      assert(/^FILE:\d+:\d+: ([a-z_]+(\[\d+\])?(\.[A-Za-z_]+)?(\[\d+\])?: )?\S/.test(line), line);
    }
  }
});
