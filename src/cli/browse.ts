import type { Command } from "./command.ts";

const HELP = `Usage: courier browse [DATABASE] [options]

Serves a database browser: a JSON API under /api and a web page at /. DATABASE is a path, a
file: URL or a remote libSQL URL (libsql://, http(s)://, ws(s)://); default: the forwarder's
database, <db_dir>/courier.db (or db_url) from the config. Read-only unless --write.

Options:
  -c, --config FILE   config file for the default database (default: $COURIER_CONFIG, else ./config.yml)
  --host HOST         address to bind (default 127.0.0.1); a non-loopback address needs a token
  --port PORT         port (default 8080; 0 picks a free one)
  --write             allow statements that write (POST only); ATTACH, VACUUM, transactions
                      and TEMP objects stay refused
  --token-file FILE   require "Authorization: Bearer <token>" on every API call, the token
                      being the first line of FILE (8+ of A-Z a-z 0-9 . _ ~ + / -)
  --token T           the same with the token itself; it shows in ps and shell history, so
                      prefer --token-file or $COURIER_BROWSE_TOKEN (read when neither is given)
  --timeout DURATION  time limit per request, e.g. 500ms, 5s, 1m (default 5s)
  --max-rows N        most rows a JSON answer holds; more set "truncated": true (default 1000)
  --cors ORIGIN       allow cross-origin calls from ORIGIN, e.g. https://app.example
                      (repeatable); '*' allows every site and is refused without a token
  --auth-token T      auth token of a remote libSQL database; else $LIBSQL_AUTH_TOKEN, else
                      (default database only) the config's db_auth_token_file

Exit codes: 0 stopped by SIGINT/SIGTERM, 1 the server failed, 2 usage, config or database error.`;

export const browseCommand: Command = {
  name: "browse",
  summary: "serve a database browser (API + web page) over a SQLite/libSQL database",
  help: HELP,
  // The implementation (and its dependencies) is loaded only when this command runs.
  run: async (argv) => (await import("./browse_run.ts")).run(argv),
};
