/**
 * Where the forwarder's state lives: a local file `<db_dir>/courier.db`, or the database of a
 * libSQL server (`db_url`) whose auth token comes from `$LIBSQL_AUTH_TOKEN` (as `browse`
 * reads it), else the config's `db_auth_token_file`. The token is held as a Secret.
 */
import type { Settings } from "../config/types.ts";
import { showDbUrl } from "../config/rules.ts";
import { Secret } from "../secrets/secret.ts";
import { readSecretFile, SecretFileError } from "../secrets/secret_file.ts";

export type StateLocation =
  | { kind: "file"; dbDir: string }
  | { kind: "remote"; url: string; authToken?: Secret };

export const DB_TOKEN_ENV = "LIBSQL_AUTH_TOKEN";
export const DB_FILE = "courier.db";

/** The path of the forwarder's database inside `dbDir`. */
export function dbPath(dbDir: string): string {
  return `${dbDir.replace(/\/+$/, "")}/${DB_FILE}`;
}

/** The auth token file cannot be read: a config problem (exit code 2), the file named. */
export class StateLocationError extends Error {
  override name = "StateLocationError";
  readonly exitCode = 2;
}

/** The state's location for `settings`; reads the auth token file when it is the source. */
export function stateLocation(
  settings: Settings,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): StateLocation {
  if (!settings.dbUrl) return { kind: "file", dbDir: settings.dbDir };
  const fromEnv = env(DB_TOKEN_ENV);
  if (fromEnv) return { kind: "remote", url: settings.dbUrl, authToken: new Secret(fromEnv) };
  const file = settings.dbAuthTokenFile;
  if (!file) return { kind: "remote", url: settings.dbUrl };
  try {
    return { kind: "remote", url: settings.dbUrl, authToken: new Secret(readSecretFile(file)) };
  } catch (error) {
    if (!(error instanceof SecretFileError)) throw error;
    throw new StateLocationError(`db_auth_token_file ${file}: ${error.message}`);
  }
}

/** The location for messages: the database file, or the URL with credentials hidden. */
export function describeLocation(location: StateLocation): string {
  return location.kind === "file" ? dbPath(location.dbDir) : showDbUrl(location.url);
}
