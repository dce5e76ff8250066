/** The JSON Schema and the validator must agree on the whole corpus. */
// A test-only package: an npm: specifier here keeps it out of the product's import map.
import { Ajv2020 } from "npm:ajv@^8.20.0/dist/2020.js";
import { parse } from "../support/yaml.ts";
import { configSchema } from "../../src/config/schema.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { runCli } from "../support/cli.ts";
import { corpusCases } from "./corpus.ts";

function compile(schema: unknown) {
  // strict mode: an ill-formed schema fails here instead of silently accepting everything.
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  return ajv.compile(schema as Record<string, unknown>);
}

const readYaml = async (path: string | URL): Promise<{ feeds: Record<string, unknown>[] }> =>
  parse(await Deno.readTextFile(path));

Deno.test("schema: `courier schema` prints a draft 2020-12 schema that accepts examples/config.yml", async () => {
  const result = await runCli(["schema"]);
  assertEquals(result.code, 0, result.stderr);
  const schema = JSON.parse(result.stdout);
  assertEquals(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  const validate = compile(schema);
  const example = await readYaml(new URL("../../examples/config.yml", import.meta.url));
  assert(validate(example), JSON.stringify(validate.errors));
  // And it is not vacuous: a typo in the example is refused.
  example.feeds[0].titel = "x";
  assert(!validate(example), "an unknown key must be refused");
});

Deno.test("schema: the committed courier.schema.json is what `courier schema` prints", async () => {
  const committed = JSON.parse(
    await Deno.readTextFile(new URL("../../courier.schema.json", import.meta.url)),
  );
  assertEquals(committed, configSchema());
});

Deno.test("schema: agrees with the validator on every corpus config", async () => {
  const validate = compile(configSchema());
  let compared = 0;
  for (const c of await corpusCases()) {
    if (c.kind === "invalid-yaml") continue;
    const accepted = validate(await readYaml(c.path));
    const expected = c.kind === "valid" || c.kind === "invalid-schema-valid";
    assertEquals(accepted, expected, `${c.name}: ${JSON.stringify(validate.errors)}`);
    compared++;
  }
  assert(compared >= 40, `compared ${compared}`);
});
