import { isRemote, localPath } from "../browse/sql/db_url.ts";
import { accessProblem } from "../browse/http/security.ts";
import { BrowseError, startBrowser } from "../browse/http/server.ts";
import { redactUrl } from "../secrets/secret.ts";
import { readSecretFile, SecretFileError } from "../secrets/secret_file.ts";
import { parseCommandArgs, parseDuration, parsePositiveInt } from "./args.ts";
import { UsageError, UserError } from "./errors.ts";

/**
 * The forwarder's database from the config: its `<db_dir>/courier.db`, or its `db_url` with
 * the token found as once, forward and status find it (store/location.ts), `--auth-token`
 * standing in for $LIBSQL_AUTH_TOKEN, which it overrides.
 */
async function defaultDatabase(
  configFlag: string | undefined,
  authTokenFlag: string | undefined,
): Promise<{ database: string; authToken?: string }> {
  // Loaded only here: a server given a DATABASE need not pay for the config reader (YAML and
  // all) in memory and start-up.
  const [{ ConfigError }, { configPathFrom, loadSettings }, location] = await Promise.all([
    import("../config/errors.ts"),
    import("../config/load.ts"),
    import("../store/location.ts"),
  ]);
  let settings;
  try {
    settings = await loadSettings(configPathFrom(configFlag), { token: false });
  } catch (error) {
    if (error instanceof ConfigError && error.missing) {
      const what = "no DATABASE given (courier browse FILE.db)";
      throw new UserError(`courier browse: ${what} and ${error.message}`, 2);
    }
    if (error instanceof ConfigError) throw new UserError(error.message, 2);
    if (error instanceof Deno.errors.NotFound) {
      throw new UserError(
        `courier browse: no DATABASE given and no config at ${configPathFrom(configFlag)}`,
        2,
      );
    }
    throw error;
  }
  const env = (name: string) =>
    name === location.DB_TOKEN_ENV && authTokenFlag !== undefined
      ? authTokenFlag
      : Deno.env.get(name);
  let state;
  try {
    state = location.stateLocation(settings, env);
  } catch (error) {
    // Names the file and what is wrong with it, never its content.
    if (error instanceof location.StateLocationError) {
      throw new UserError(`courier browse: ${error.message}`, 2);
    }
    throw error;
  }
  // With db_url the state is on the server: browse it there (read-only unless --write).
  if (state.kind === "file") return { database: location.dbPath(state.dbDir) };
  return { database: state.url, authToken: state.authToken?.reveal() };
}

/**
 * The token in the first line of FILE, trimmed: unlike `--token T`, it does not show in `ps`
 * or in shell history. Errors name the file, never its content.
 */
export function readTokenFile(path: string): string {
  try {
    return readSecretFile(path);
  } catch (error) {
    if (!(error instanceof SecretFileError)) throw error;
    throw new UsageError(`courier browse: --token-file ${path}: ${error.message}`);
  }
}

/** `courier browse`: loaded by browseCommand.run only when the command runs. */
export async function run(argv: string[]): Promise<number> {
  if (argv[0] === "--query-worker") {
    // How a compiled courier starts its own query workers (see src/browse/spawn.ts). Loaded
    // only here: the server process never loads the database driver.
    const { runWorker } = await import("../browse/pool/worker.ts");
    await runWorker();
    return 0;
  }
  const { values, positionals } = parseCommandArgs("browse", argv, {
    config: { type: "string", short: "c" },
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8080" },
    write: { type: "boolean", default: false },
    token: { type: "string" },
    "token-file": { type: "string" },
    timeout: { type: "string", default: "5s" },
    "max-rows": { type: "string", default: "1000" },
    cors: { type: "string", multiple: true },
    "auth-token": { type: "string" },
  }, true);
  if (positionals.length > 1) {
    throw new UsageError("courier browse: at most one DATABASE (see 'courier browse --help')");
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) {
    throw new UsageError(`courier browse: --port must be 0-65535, got "${values.port}"`);
  }
  const timeoutMs = parseDuration(
    "browse",
    "timeout",
    values.timeout,
    1,
    "a duration like 500ms, 5s or 1m",
  );
  const maxRows = parsePositiveInt("browse", "max-rows", values["max-rows"]);
  if (values.token !== undefined && values["token-file"] !== undefined) {
    throw new UsageError("courier browse: give --token-file or --token, not both");
  }
  const token = values["token-file"] !== undefined
    ? readTokenFile(values["token-file"])
    : values.token ?? Deno.env.get("COURIER_BROWSE_TOKEN");
  const cors = values.cors ?? [];
  // Checked again by startBrowser; here first, so it is a usage error before the database opens.
  const problem = accessProblem({ host: values.host, token, cors });
  if (problem !== null) throw new UsageError(`courier browse: ${problem}`);
  const { database, authToken } = positionals[0] !== undefined
    ? {
      database: positionals[0],
      authToken: values["auth-token"] ?? Deno.env.get("LIBSQL_AUTH_TOKEN"),
    }
    : await defaultDatabase(values.config, values["auth-token"]);
  let label: string;
  if (isRemote(database)) {
    label = redactUrl(database).replace(/[?#].*$/, "");
    // Checked once here, so a server down at start is one line (exit 1: it may come up), not
    // every call's error. Loaded only for a remote database, as the workers load it.
    const { checkRemote } = await import("../browse/sql/remote.ts");
    try {
      await checkRemote(database, authToken);
    } catch (error) {
      throw new UserError(`courier browse: ${(error as Error).message}`, 1);
    }
  } else {
    const path = localPath(database);
    try {
      if (!Deno.statSync(path).isFile) throw new Deno.errors.NotFound();
    } catch {
      throw new UserError(`courier browse: database not found: ${path}`, 2);
    }
    label = path.split(/[\\/]/).pop() ?? path;
  }
  let running;
  try {
    running = await startBrowser({
      database,
      label,
      authToken,
      write: values.write,
      host: values.host,
      port,
      token,
      timeoutMs,
      maxRows,
      cors,
    });
  } catch (error) {
    if (error instanceof BrowseError) throw new UserError(`courier browse: ${error.message}`, 2);
    throw error;
  }
  const mode = values.write ? "read-write" : "read-only";
  console.log(`courier browse: serving ${label} (${mode}) at ${running.url}`);
  const stop = () => running.close();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await running.finished;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  return 0;
}
