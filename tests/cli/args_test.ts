import assert from "node:assert/strict";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { negativeValues, type Options, parseCommandArgs } from "../../src/cli/args.ts";
import { UsageError } from "../../src/cli/errors.ts";
import { runCli } from "../support/cli.ts";

// node's util.parseArgs is the reference: courier's parser must read every argument list as it
// does (values, positionals, or the same refusal), without loading it in the product.

const TABLES: Options[] = [
  {
    config: { type: "string", short: "c" },
    json: { type: "boolean", short: "j" },
    feed: { type: "string", multiple: true },
    x: { type: "boolean", short: "x" },
    port: { type: "string", default: "8080" },
    write: { type: "boolean", default: false },
  },
  {},
];

const TOKENS = [
  "a",
  "-",
  "--",
  "--json",
  "-j",
  "-jx",
  "-jc",
  "-xjcv",
  "-cv",
  "-c",
  "-c=",
  "-j=1",
  "--config",
  "--config=",
  "--config=-v",
  "--json=1",
  "--feed",
  "--feed=b",
  "-v",
  "--bogus",
  "--jsn",
  "-z",
  "---x",
  "--=x",
  "--__proto__",
  "--toString",
  "--port",
  "",
  "-1",
];

/** Every list of up to `max` tokens: 29 + 29² + 29³ lists. */
function lists(max: number): string[][] {
  const out: string[][] = [[]];
  let last: string[][] = [[]];
  for (let length = 1; length <= max; length++) {
    last = last.flatMap((list) => TOKENS.map((token) => [...list, token]));
    out.push(...last);
  }
  return out;
}

type Outcome = { values: Record<string, unknown>; positionals: string[] } | { error: string };

function node(argv: string[], options: Options, allowPositionals: boolean): Outcome {
  try {
    const { values, positionals } = parseArgs({
      // courier's one deviation, held by its own test below: `--opt -5` is `--opt=-5`.
      args: negativeValues(argv, options),
      options: options as ParseArgsConfig["options"],
      allowPositionals,
      strict: true,
    });
    return { values: { ...values }, positionals };
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /^Unknown option '(-[^']*)'/.exec(message)?.[1];
    if (unknown !== undefined) return { error: `unknown option ${unknown}` };
    // courier says the ambiguity in one line; which option it names is what must agree.
    return { error: message.replace(/ is ambiguous\.\n[^]*$/, " is ambiguous") };
  }
}

function courier(argv: string[], options: Options, allowPositionals: boolean): Outcome {
  try {
    const { values, positionals } = parseCommandArgs("t", argv, options, allowPositionals);
    return { values: { ...values }, positionals };
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    const said = error.message.replace(/^courier t: /, "").replace(
      / \(see 'courier t --help'\)$/,
      "",
    );
    assert.ok(!said.includes("\n"), said);
    return { error: said.replace(/;.*$/, "") };
  }
}

Deno.test("args: every list of up to three arguments reads as node's util.parseArgs reads it", () => {
  let compared = 0;
  for (const options of TABLES) {
    for (const allowPositionals of [true, false]) {
      for (const argv of lists(3)) {
        const ours = courier(argv, options, allowPositionals);
        const theirs = node(argv, options, allowPositionals);
        if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
          assert.deepEqual(ours, theirs, JSON.stringify({ argv, allowPositionals }));
        }
        compared++;
      }
    }
  }
  assert.equal(compared, 4 * (1 + 29 + 29 ** 2 + 29 ** 3));
});

Deno.test("args: a refusal is one line naming the command and the nearest option", () => {
  const options = { json: { type: "boolean" }, config: { type: "string", short: "c" } } as const;
  const said = (argv: string[]) => {
    try {
      parseCommandArgs("validate", argv, options);
      return "read";
    } catch (error) {
      return (error as Error).message;
    }
  };
  assert.equal(
    said(["--jsn"]),
    "courier validate: unknown option --jsn; did you mean --json? (see 'courier validate --help')",
  );
  assert.equal(
    said(["-c"]),
    "courier validate: Option '-c, --config <value>' argument missing (see 'courier validate --help')",
  );
  assert.equal(
    said(["-c", "--json"]),
    "courier validate: Option '-c' argument is ambiguous; to give a value starting with a dash " +
      "use '--config=-XYZ' or '-c-XYZ' (see 'courier validate --help')",
  );
  assert.equal(
    said(["x.yml"]),
    "courier validate: Unexpected argument 'x.yml'. This command does not take positional " +
      "arguments (see 'courier validate --help')",
  );
});

Deno.test("args: a negative number after an option that takes a value is that value", () => {
  const options: Options = {
    grace: { type: "string" },
    config: { type: "string", short: "c" },
    json: { type: "boolean" },
  };
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
