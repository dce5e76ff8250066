/**
 * How a DATABASE argument is read, apart from the drivers: the server process needs these
 * and must not load the native SQLite addon (only its workers open the database).
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

/** An SQLite URI for `path`: `mode=ro` makes the engine itself refuse every write to it. */
export function fileUri(path: string, write: boolean): string {
  const encoded = path.replace(
    /[%?#]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).padStart(2, "0"),
  );
  return `file:${encoded}?mode=${write ? "rw" : "ro"}`;
}
