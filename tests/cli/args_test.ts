import assert from "node:assert/strict";
import { parseCommandArgs } from "../../src/cli/args.ts";
import { runCli } from "../support/cli.ts";

Deno.test("args: a negative number after an option that takes a value is that value", () => {
  const options = {
    grace: { type: "string" },
    config: { type: "string", short: "c" },
    json: { type: "boolean" },
  } as const;
  const read = (argv: string[]) => {
    const { values, positionals } = parseCommandArgs("t", argv, options, true);
    return { values: { ...values }, positionals };
  };
  assert.deepEqual(read(["--grace", "-5"]).values, { grace: "-5" });
  assert.deepEqual(read(["-c", "-1.5", "x"]), { values: { config: "-1.5" }, positionals: ["x"] });
  // Not after a boolean, not a word, not after `--`.
  assert.throws(() => read(["--json", "-5"]), /unknown option -5/);
  assert.throws(() => read(["--grace", "-x"]), /--grace' argument is ambiguous/);
  assert.deepEqual(read(["--", "--grace", "-5"]).positionals, ["--grace", "-5"]);
});

Deno.test("args: forward --grace -5 is told what is wrong with -5, as written", async () => {
  const r = await runCli(["forward", "--grace", "-5"]);
  assert.deepEqual([r.code, r.stderr], [
    2,
    'courier forward: --grace must be a number of seconds >= 0, got "-5"\n',
  ]);
});
