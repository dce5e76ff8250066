/**
 * The rule between the state keys, for every config reader. Apart from validate.ts, which
 * loads the yaml package: the quick reader checks this too, and importing it from there made
 * every command load yaml (~25 ms of a `courier once`).
 */

/** Which state key is in the way of which, or null. */
export function stateKeysProblem(
  top: Record<string, unknown>,
): { key: string; message: string } | null {
  if ("db_url" in top && "db_dir" in top) {
    return {
      key: "db_dir",
      message: "give db_dir (a local database) or db_url (a libSQL server), not both: " +
        "drop db_dir to keep the state on the server, or db_url to keep it in a local file",
    };
  }
  if ("db_auth_token_file" in top && !("db_url" in top)) {
    return {
      key: "db_auth_token_file",
      message: "is only read with db_url; drop it or set db_url",
    };
  }
  return null;
}
