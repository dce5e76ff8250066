/**
 * An error caused by the user's input (arguments, config, a file, a URL). The CLI prints its
 * message as one line, without a stack, and exits with `exitCode`.
 */
export class UserError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
    this.name = "UserError";
  }
}

/** Bad command-line usage: exit code 2. */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message, 2);
    this.name = "UsageError";
  }
}

/**
 * The exit code an error of another layer carries (`readonly exitCode`: a config, lock, store
 * or proxy error), or null for an error that does not (a bug).
 */
export function exitCodeOf(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  const code = (error as Error & { exitCode?: unknown }).exitCode;
  return typeof code === "number" && Number.isInteger(code) ? code : null;
}
