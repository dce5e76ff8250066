/**
 * Why a file could not be read, in a few words for a one-line error: the kind of failure, never
 * a stack or the file's content.
 */
export function fileReadProblem(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  // Deno.readTextFile's TextDecoder is fatal: a file that is not UTF-8 throws a TypeError.
  if (error instanceof TypeError) return "not valid UTF-8 text";
  return error instanceof Error ? error.message : String(error);
}
