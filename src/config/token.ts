/**
 * Where the bot token comes from. One precedence, the environment before the config (as
 * miniflux's `*_FILE` variables, Docker secrets and systemd credentials expect):
 *
 *   1. $COURIER_MESSENGER_AUTH_TOKEN            the token itself
 *   2. $COURIER_MESSENGER_AUTH_TOKEN_FILE       a file whose first line is the token
 *   3. $CREDENTIALS_DIRECTORY/messenger_auth_token   systemd's LoadCredential=messenger_auth_token:…
 *   4. messenger_auth_token_file (config)       a file, relative paths from the config's directory
 *   5. messenger_auth_token (config)            the token itself
 *
 * An empty variable counts as unset. `validate` shows the source, never the token.
 */
import { Secret } from "../secrets/secret.ts";
import { readSecretFile, SecretFileError, worldReadable } from "../secrets/secret_file.ts";
import { checkToken } from "./rules.ts";
import type { Settings } from "./types.ts";

export const TOKEN_ENV = "COURIER_MESSENGER_AUTH_TOKEN";
export const TOKEN_FILE_ENV = "COURIER_MESSENGER_AUTH_TOKEN_FILE";
/** The credential name to give systemd's LoadCredential=. */
export const CREDENTIAL_NAME = "messenger_auth_token";

/**
 * The token's origin: the value itself, or a file holding it; `source` is for display, `fix`
 * says what changes it (for a token the messenger refuses).
 */
export type TokenOrigin =
  | { kind: "value"; value: string; source: string; fix: string }
  | { kind: "file"; path: string; source: string; fix: string };

/** A file a running forward reads again on SIGHUP. */
const RELOADS = "then reload a running forward (SIGHUP)";
/** What the process was started with: a reload keeps it. */
const RESTARTS = "then restart courier (a reload keeps what it was started with)";

/**
 * The token the environment gives (steps 1-3), or null: then the config must give it.
 * `exists` says whether a systemd credential file is there (its directory may hold others).
 */
export function environmentToken(
  env: (name: string) => string | undefined,
  exists: (path: string) => boolean,
): TokenOrigin | null {
  const value = env(TOKEN_ENV);
  if (value) {
    const fix = `set the right one in $${TOKEN_ENV} ${RESTARTS}`;
    return { kind: "value", value, source: `$${TOKEN_ENV}`, fix };
  }
  const file = env(TOKEN_FILE_ENV);
  if (file) {
    const source = `file ${file} ($${TOKEN_FILE_ENV})`;
    return { kind: "file", path: file, source, fix: `write the right one in ${file} ${RELOADS}` };
  }
  const credentials = env("CREDENTIALS_DIRECTORY");
  if (credentials) {
    const path = `${credentials.replace(/\/+$/, "")}/${CREDENTIAL_NAME}`;
    if (exists(path)) {
      const fix = `write the right one in the file the unit's LoadCredential=${CREDENTIAL_NAME}: ` +
        `names, ${RESTARTS.replace("courier", "the service")}`;
      return { kind: "file", path, source: `systemd credential ${CREDENTIAL_NAME}`, fix };
    }
  }
  return null;
}

/** The token the config gives (steps 4-5), or null. */
export function configToken(settings: Settings): TokenOrigin | null {
  if (settings.tokenFile) {
    const path = settings.tokenFile;
    const source = `file ${path} (messenger_auth_token_file)`;
    return { kind: "file", path, source, fix: `write the right one in ${path} ${RELOADS}` };
  }
  const value = settings.token.reveal();
  if (value === "") return null;
  const fix = `fix messenger_auth_token in ${settings.configPath} ${RELOADS}`;
  return { kind: "value", value, source: "config (messenger_auth_token)", fix };
}

/** Thrown for a token that cannot be used; lines as ConfigError takes them, never the token. */
export class TokenError extends Error {
  override name = "TokenError";
}

/**
 * The settings with the token of `origin` read and checked, `tokenSource` set, and a warning
 * for a token file every user may read. The only I/O here: reading that file.
 */
export function withToken(settings: Settings, origin: TokenOrigin): Settings {
  let value: string;
  const warnings = [...(settings.warnings ?? [])];
  if (origin.kind === "file") {
    try {
      value = readSecretFile(origin.path);
    } catch (error) {
      if (!(error instanceof SecretFileError)) throw error;
      throw new TokenError(`bot token ${origin.source}: ${error.message}`);
    }
    if (worldReadable(origin.path)) {
      warnings.push(
        `bot token ${origin.source}: every user of this machine can read it (chmod o-r ${origin.path})`,
      );
    }
  } else value = origin.value;
  // The config's own key was checked with its line; a token from elsewhere is checked here.
  const problem = checkToken(value);
  if (problem !== null) throw new TokenError(`bot token ${origin.source}: ${problem}`);
  return {
    ...settings,
    token: new Secret(value),
    tokenSource: origin.source,
    tokenFix: origin.fix,
    warnings,
  };
}
