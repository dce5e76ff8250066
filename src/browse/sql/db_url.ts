/**
 * How a DATABASE argument is read, apart from the engines: the server process needs these and
 * opens no database (only its workers do).
 */

/** Whether a DATABASE argument names a remote libSQL server rather than a local file. */
export function isRemote(database: string): boolean {
  return /^(libsql|https?|wss?):\/\//i.test(database);
}

/** The local file path of a DATABASE argument (a path or a `file:` URL). */
export function localPath(database: string): string {
  if (!/^file:/i.test(database)) return database;
  const rest = database.replace(/^file:(\/\/(localhost)?(?=\/))?/i, "").replace(/[?#].*$/, "");
  return decodeURIComponent(rest);
}
