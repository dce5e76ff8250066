/**
 * The libSQL project's own Hrana test server (../shared/vendor/hrana-test-server, MIT, written
 * by the sqld authors), on loopback with a persistent SQLite file: the independent server for
 * every remote-libSQL test. Needs Debian's python3-aiohttp and python3-protobuf.
 */
import { stopChild, withinChild } from "./child.ts";

const VENDOR = new URL("../../../shared/vendor/hrana-test-server/", import.meta.url);

export interface HranaServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Why the server cannot run here, or null. */
export function hranaMissing(): string | null {
  try {
    Deno.statSync(new URL("server_v2.py", VENDOR));
  } catch {
    return `no ${decodeURIComponent(VENDOR.pathname)}server_v2.py`;
  }
  const probe = new Deno.Command("/usr/bin/python3", {
    args: ["-c", "import aiohttp, google.protobuf"],
    stdout: "null",
    stderr: "null",
  }).outputSync();
  return probe.success ? null : "python3-aiohttp or python3-protobuf is not installed";
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts server_v2.py (Hrana 2 over HTTP and WebSocket) on `file`, or with `version: 3`
 * server_v3.py (Hrana 3 over WebSocket, JSON frames: what @libsql/client sends); resolves once
 * it listens. `port` reuses a port (a server restarted after an outage).
 */
export async function startHrana(
  file: string,
  options: { version?: 2 | 3; port?: number } = {},
): Promise<HranaServer> {
  const port = options.port ?? freePort();
  const script = options.version === 3 ? "server_v3.py" : "server_v2.py";
  const child = new Deno.Command("/usr/bin/python3", {
    args: [decodeURIComponent(new URL(script, VENDOR).pathname)],
    env: { HOST: "127.0.0.1", PORT: String(port), PERSISTENT_DB: file, ENCODING: "json" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  await withinChild(
    child,
    "the Hrana server getting ready",
    (async () => {
      while (!seen.includes("Server is ready")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the Hrana server exited: ${seen}`);
        seen += value;
      }
    })(),
  );
  // Keep draining its log so it never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await stopChild(child);
    },
  };
}
