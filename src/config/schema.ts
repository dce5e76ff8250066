/** The config's JSON Schema (draft 2020-12), generated from the field tables. */
import { FEED_FIELDS, type Field, FILTER_TABLE, type JsonSchema, TOP_FIELDS } from "./fields.ts";

export const SCHEMA_ID = "https://courier.invalid/schema/config.json";

function objectSchema(fields: Record<string, Field>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, field] of Object.entries(fields)) {
    properties[key] = { description: field.description, ...field.schema };
  }
  return {
    type: "object",
    properties,
    required: Object.entries(fields).filter(([, f]) => f.required).map(([k]) => k),
    additionalProperties: false,
  };
}

/**
 * The schema, for editors (`# yaml-language-server: $schema=...`) and other validators. It
 * states every key, type and pattern; what a schema cannot say (unique feed names, a cron
 * expression croner accepts, a filter expression RE2 can run, a template's markup) only
 * `courier validate` checks.
 */
export function configSchema(): JsonSchema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: SCHEMA_ID,
    title: "courier config",
    description: "Feeds that courier forwards to Telegram channels.",
    ...objectSchema(TOP_FIELDS),
    allOf: [
      // The token may also come from the environment, so neither key is required; both is wrong.
      {
        not: {
          properties: { messenger_auth_token: {}, messenger_auth_token_file: {} },
          required: ["messenger_auth_token", "messenger_auth_token_file"],
        },
      },
      // The state is local (db_dir) or on a server (db_url), never both.
      { not: { properties: { db_dir: {}, db_url: {} }, required: ["db_dir", "db_url"] } },
      { dependentRequired: { db_auth_token_file: ["db_url"] } },
    ],
    $defs: { feed: objectSchema(FEED_FIELDS), filter: objectSchema(FILTER_TABLE) },
  };
}
