/**
 * Reading a secret (a bot token, a bearer token) from a file: the Docker-secret and systemd
 * credential convention, where the value stays out of `ps`, shell history and the config.
 * Errors name the problem, never the content.
 */
import { fileReadProblem } from "../log/file_error.ts";

/** Why a secret file could not give its secret; `message` is a few words, no content. */
export class SecretFileError extends Error {
  override name = "SecretFileError";
}

/** Secrets are short; reading more than this is a mistake (`/dev/zero`), not a secret. */
const MAX_BYTES = 4096;

/** The first line of the file, trimmed. Bounded, so a device or a huge file cannot fill memory. */
export function readSecretFile(path: string): string {
  const buffer = new Uint8Array(MAX_BYTES);
  let size = 0;
  try {
    using file = Deno.openSync(path);
    for (;;) {
      const n = file.readSync(buffer.subarray(size));
      if (n === null || n === 0) break;
      size += n;
      if (size === buffer.length) break;
    }
  } catch (error) {
    throw new SecretFileError(fileReadProblem(error));
  }
  const text = new TextDecoder().decode(buffer.subarray(0, size));
  const newline = text.search(/\r?\n/);
  if (newline < 0 && size === buffer.length) {
    throw new SecretFileError("the first line is too long");
  }
  const secret = (newline < 0 ? text : text.slice(0, newline)).trim();
  if (secret === "") throw new SecretFileError("the first line holds no token");
  return secret;
}

/**
 * Whether every user of the machine may read the file (mode o+r), which a secret should not
 * allow; false where modes do not exist (Windows) or the file cannot be inspected.
 */
export function worldReadable(path: string): boolean {
  try {
    const mode = Deno.statSync(path).mode;
    return mode !== null && (mode & 0o004) !== 0;
  } catch {
    return false;
  }
}
