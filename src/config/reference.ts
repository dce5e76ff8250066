/** The config reference tables of README.md, generated from the field tables. */
import { FEED_FIELDS, type Field, FILTER_TABLE, TOP_FIELDS } from "./fields.ts";

function table(fields: Record<string, Field>): string {
  const rows = Object.entries(fields).map(([key, f]) =>
    `| \`${key}\` | ${f.required ? "yes" : "no"} | ${f.default} | ${f.description} |`
  );
  return ["| Field | Required | Default | Meaning |", "|---|---|---|---|", ...rows].join("\n");
}

export function configReference(): string {
  return `Top level:\n\n${table(TOP_FIELDS)}\n\nEach element of \`feeds\`:\n\n${
    table(FEED_FIELDS)
  }\n\nA \`filter\` (top level or per feed):\n\n${table(FILTER_TABLE)}\n`;
}

if (import.meta.main) console.log(configReference());
