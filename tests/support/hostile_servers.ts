/**
 * Servers a client fails against, for the failure-wording tests of feeds and the messenger.
 */
import assert from "node:assert/strict";
import { runWithin } from "./child.ts";

/** A port nothing listens on: bound by the OS, then let go. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A TCP server that takes each connection and drops it before answering (a reset). */
export function startDropper(): { port: number; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    for await (const conn of listener) {
      // Closing with the request still unread makes the kernel send a reset.
      await conn.read(new Uint8Array(1)).catch(() => null);
      conn.close();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close() {
      listener.close();
      await serving;
    },
  };
}

/**
 * Two servers a TLS client fails against, for the failure-wording tests of feeds and the
 * messenger: one with a self-signed certificate (made by Debian's openssl for this run) and one
 * that speaks plain HTTP where https is expected. Both answer `answer()` if ever reached.
 */

export interface TlsTrouble {
  /** Port of the server whose certificate no CA issued. */
  selfSignedPort: number;
  /** Port of a plain HTTP server. */
  plainPort: number;
  close(): Promise<void>;
}

export async function startTlsTrouble(answer: () => Response): Promise<TlsTrouble> {
  const dir = await Deno.makeTempDir({ prefix: "courier-tls-" });
  const made = await runWithin("openssl", {
    args: ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"]
      .concat(["-keyout", `${dir}/key.pem`, "-out", `${dir}/cert.pem`]),
    stdout: "null",
    stderr: "null",
  });
  assert.ok(made.success, "openssl made a self-signed certificate");
  const tls = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    cert: await Deno.readTextFile(`${dir}/cert.pem`),
    key: await Deno.readTextFile(`${dir}/key.pem`),
    onListen() {},
  }, answer);
  const plain = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, answer);
  return {
    selfSignedPort: tls.addr.port,
    plainPort: plain.addr.port,
    async close() {
      await tls.shutdown();
      await plain.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
