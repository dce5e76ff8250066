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
