/**
 * The smoke test of a compiled courier, shared by tests/compile_test.ts and the release
 * workflow (which runs it on each system's own runner):
 *   deno run -A tests/support/binary_smoke.ts dist/courier-x86_64-unknown-linux-gnu
 * It checks `--version`, `validate` of examples/config.yml, and `browse` answering `/api/info`
 * through its query worker (a compiled courier starts itself as the worker). Throws, naming
 * the step, on the first failure.
 */
import { join } from "node:path";
import { VERSION } from "../../src/version.ts";
import { runWithin, stopChild } from "./child.ts";

const ROOT = new URL("../..", import.meta.url);
const decoder = new TextDecoder();

export async function smokeTest(binary: string, log: (line: string) => void = () => {}) {
  const root = decodeURIComponent(ROOT.pathname).replace(/^\/([A-Za-z]:)/, "$1");

  const version = await run(binary, ["--version"], root);
  if (version.trim() !== `courier ${VERSION}`) {
    throw new Error(`--version said ${JSON.stringify(version.trim())}, not "courier ${VERSION}"`);
  }
  log(`--version: ${version.trim()}`);

  const validate = await run(binary, ["validate", "-c", join("examples", "config.yml")], root);
  if (!/valid, 3 feeds/.test(validate)) {
    throw new Error(`validate of examples/config.yml did not say "valid, 3 feeds":\n${validate}`);
  }
  log("validate: examples/config.yml is valid, 3 feeds");

  // An empty file is an empty SQLite database; /api/info's sqlite_version comes from the worker.
  const dir = await Deno.makeTempDir({ prefix: "courier-smoke-" });
  const database = join(dir, "smoke.db");
  await Deno.writeFile(database, new Uint8Array());
  const browse = new Deno.Command(binary, {
    args: ["browse", database, "--port", "0"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = collect(browse.stdout, browse.stderr);
  try {
    const url = await output.url;
    const response = await fetch(new URL("api/info", url), {
      signal: AbortSignal.timeout(60_000),
    });
    const info = await response.json();
    if (response.status !== 200 || info.database !== "smoke.db" || !info.sqlite_version) {
      throw new Error(`browse: /api/info answered ${response.status} ${JSON.stringify(info)}`);
    }
    log(`browse: /api/info answered by a worker with SQLite ${info.sqlite_version}`);
  } finally {
    await stopChild(browse);
    await output.done;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Runs the binary to its end; its stdout, or an error with both outputs if it failed. */
async function run(binary: string, args: string[], cwd: string): Promise<string> {
  const out = await runWithin(binary, { args, cwd });
  const stdout = decoder.decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `courier ${args.join(" ")} exited ${out.code}:\n${stdout}${decoder.decode(out.stderr)}`,
    );
  }
  return stdout;
}

/**
 * Reads both outputs to their end; `url` is the one `courier browse` prints once it listens
 * ("... at http://127.0.0.1:PORT/"), or fails with what it printed if it ended, or took over a
 * minute, without one.
 */
function collect(...streams: ReadableStream<Uint8Array>[]) {
  let seen = "";
  let found: (url: string) => void = () => {};
  const done: Promise<void> = Promise.all(streams.map(async (stream) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      seen += text;
      const match = /https?:\/\/127\.0\.0\.1:\d+\//.exec(seen);
      if (match) found(match[0]);
    }
  })).then(() => {});
  const url = new Promise<string>((resolve, reject) => {
    found = resolve;
    const timer = setTimeout(
      () => reject(new Error(`browse said no URL within 60 s:\n${seen}`)),
      60_000,
    );
    done.then(() => reject(new Error(`browse ended without a URL:\n${seen}`)))
      .finally(() => clearTimeout(timer));
  });
  return { url, done };
}

if (import.meta.main) {
  const [binary] = Deno.args;
  if (!binary) {
    console.error("usage: deno run -A tests/support/binary_smoke.ts BINARY");
    Deno.exit(2);
  }
  try {
    await smokeTest(binary, (line) => console.log(`smoke: ${line}`));
    console.log(`smoke: ${binary} passed`);
  } catch (error) {
    console.error(`smoke: ${binary} FAILED: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
