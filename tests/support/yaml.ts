/** YAML for tests, through js-yaml (the product's one YAML library). */
import { dump, load } from "js-yaml";
import { CONFIG_SCHEMA } from "../../src/config/yaml.ts";

/** YAML text as a user would write it: keys whose value is undefined left out, lines unfolded. */
export function stringify(value: unknown): string {
  return dump(value, { skipInvalid: true, lineWidth: -1 });
}

/** The plain values of YAML text, read as the config is (a time stays text). */
// deno-lint-ignore no-explicit-any
export function parse(text: string): any {
  return load(text, { schema: CONFIG_SCHEMA });
}
