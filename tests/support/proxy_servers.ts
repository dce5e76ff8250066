/**
 * Real proxy servers for tests, run as subprocesses on 127.0.0.1 (Debian packages: tinyproxy,
 * microsocks, socat, openssl). Each start gets its own port and temp dir, so parallel tests do not clash.
 */

import { GRACE_MS, runWithin, stopChild } from "./child.ts";

export interface ProxyServer {
  /** The proxy as a config value, credentials included (percent-encoded). */
  url: string;
  /** What the server printed so far (tinyproxy and microsocks log each connection). */
  log(): string;
  /** Kills the server(s) and removes temp files. Safe to call twice. */
  stop(): Promise<void>;
}

export interface Credentials {
  user?: string;
  pass?: string;
}

/** tinyproxy: an HTTP proxy that adds `Via: 1.1 tinyproxy (...)` to forwarded requests. */
export async function startTinyproxy(creds: Credentials = {}): Promise<ProxyServer> {
  for (const v of [creds.user, creds.pass]) {
    // tinyproxy's config grammar only takes [-a-z0-9._] here.
    if (v !== undefined && !/^[-a-z0-9._]+$/i.test(v)) {
      throw new Error("tinyproxy BasicAuth user/pass must match [-a-zA-Z0-9._]+");
    }
  }
  const dir = await Deno.makeTempDir({ prefix: "courier-tinyproxy-" });
  return await withFreePort(dir, async (port) => {
    const conf = [
      `Port ${port}`,
      "Listen 127.0.0.1",
      "Timeout 30",
      "MaxClients 50",
      "Allow 127.0.0.1",
      'ViaProxyName "tinyproxy"',
      "LogLevel Connect",
      ...(creds.user !== undefined ? [`BasicAuth ${creds.user} ${creds.pass ?? ""}`] : []),
    ].join("\n");
    const path = `${dir}/tinyproxy.conf`;
    await Deno.writeTextFile(path, conf + "\n");
    const proc = spawn("tinyproxy", ["-d", "-c", path]);
    await waitForTcp(port, proc);
    return { proc, url: `http://${userinfo(creds)}127.0.0.1:${port}` };
  });
}

/** microsocks: a SOCKS5 proxy; it logs `connected to <host>:<port>` per connection. */
export async function startMicrosocks(creds: Credentials = {}): Promise<ProxyServer> {
  const dir = await Deno.makeTempDir({ prefix: "courier-microsocks-" });
  return await withFreePort(dir, async (port) => {
    const proc = spawnMicrosocks(port, creds);
    await waitForTcp(port, proc);
    return { proc, url: `socks5://${userinfo(creds)}127.0.0.1:${port}` };
  });
}

/** microsocks reachable only through a unix socket (socat in front of it). */
export async function startUnixSocks(creds: Credentials = {}): Promise<
  ProxyServer & {
    path: string;
  }
> {
  const dir = await Deno.makeTempDir({ prefix: "courier-unixsocks-" });
  const socketPath = `${dir}/socks.sock`;
  const server = await withFreePort(dir, async (port) => {
    const socks = spawnMicrosocks(port, creds);
    await waitForTcp(port, socks);
    const socat = spawn("socat", [`UNIX-LISTEN:${socketPath},fork`, `TCP:127.0.0.1:${port}`]);
    try {
      await waitForUnix(socketPath, socat);
    } catch (e) {
      await socks.stop();
      throw e;
    }
    return {
      proc: {
        output: () => socks.output(),
        // microsocks first: socat's forked children hold its stdout until their TCP peer closes.
        stop: async () => {
          await socks.stop();
          await socat.stop();
        },
        exited: socks.exited,
      },
      url: `socks5://${userinfo(creds)}unix${socketPath}`,
    };
  });
  return { ...server, path: socketPath };
}

/**
 * An HTTPS proxy: socat terminates TLS (a certificate from a throwaway CA made with openssl) in
 * front of tinyproxy. Pass `caCert` to the client so it trusts the proxy.
 */
export async function startHttpsProxy(creds: Credentials = {}): Promise<
  ProxyServer & {
    caCert: string;
  }
> {
  const inner = await startTinyproxy(creds);
  const innerPort = new URL(inner.url).port;
  const dir = await Deno.makeTempDir({ prefix: "courier-httpsproxy-" });
  try {
    await makeCertificate(dir);
    const server = await withFreePort(dir, async (port) => {
      const socat = spawn("socat", [
        `OPENSSL-LISTEN:${port},fork,reuseaddr,cert=${dir}/server.pem,verify=0`,
        `TCP:127.0.0.1:${innerPort}`,
      ]);
      await waitForTcp(port, socat);
      return {
        proc: {
          output: inner.log,
          stop: async () => {
            await inner.stop();
            await socat.stop();
          },
          exited: socat.exited,
        },
        url: `https://${userinfo(creds)}127.0.0.1:${port}`,
      };
    });
    return { ...server, caCert: await Deno.readTextFile(`${dir}/ca.pem`) };
  } catch (e) {
    await inner.stop();
    throw e;
  }
}

/** Writes ca.pem and server.pem (certificate + key for IP 127.0.0.1) into `dir`. */
async function makeCertificate(dir: string): Promise<void> {
  const steps = [
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=courier test CA"]
      .concat(["-keyout", "ca.key", "-out", "ca.pem"]),
    ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1"]
      .concat(["-keyout", "leaf.key", "-out", "leaf.csr"]),
    ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"]
      .concat(["-days", "2", "-extfile", "ext.cnf", "-out", "leaf.pem"]),
  ];
  await Deno.writeTextFile(
    `${dir}/ext.cnf`,
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
  );
  for (const args of steps) {
    const out = await runWithin("openssl", { args, cwd: dir, stdout: "null" });
    if (!out.success) {
      throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
    }
  }
  const pem = (await Deno.readTextFile(`${dir}/leaf.pem`)) +
    (await Deno.readTextFile(`${dir}/leaf.key`));
  await Deno.writeTextFile(`${dir}/server.pem`, pem);
}

interface Proc {
  output(): string;
  stop(): Promise<void>;
  /** Resolves with the exit code when the process ends on its own or is stopped. */
  exited: Promise<number>;
}

function spawnMicrosocks(port: number, creds: Credentials): Proc {
  const auth = creds.user !== undefined ? ["-u", creds.user, "-P", creds.pass ?? ""] : [];
  return spawn("microsocks", ["-i", "127.0.0.1", "-p", String(port), ...auth]);
}

function spawn(cmd: string, args: string[]): Proc {
  const child = new Deno.Command(cmd, { args, stdin: "null", stdout: "piped", stderr: "piped" })
    .spawn();
  let text = "";
  const decoder = new TextDecoder();
  // A forked child (socat's) can hold the pipes after the server ends: the drain is cut then.
  const cut = new AbortController();
  const drain = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeTo(
      new WritableStream({
        write(chunk) {
          text += decoder.decode(chunk, { stream: true });
        },
      }),
      { signal: cut.signal },
    );
  const drained = Promise.allSettled([drain(child.stdout), drain(child.stderr)]);
  const exited = child.status.then((s) => s.code);
  let stopping: Promise<void> | undefined;
  return {
    output: () => text,
    exited,
    stop: () =>
      stopping ??= (async () => {
        await stopChild(child);
        const timer = setTimeout(() => cut.abort(), GRACE_MS);
        await drained;
        clearTimeout(timer);
      })(),
  };
}

/**
 * Picks a free port, starts the server on it, and retries with another port if the server dies
 * before it is ready (another test grabbed the port in between).
 */
async function withFreePort(
  dir: string,
  start: (port: number) => Promise<{ proc: Proc; url: string }>,
): Promise<ProxyServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    try {
      const { proc, url } = await start(port);
      return {
        url,
        log: proc.output,
        stop: async () => {
          await proc.stop();
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        },
      };
    } catch (e) {
      lastError = e;
    }
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  throw lastError;
}

/** Readiness: polls until the port accepts a connection, a bounded number of times. */
function waitForTcp(port: number, proc: Proc): Promise<void> {
  return waitFor(proc, () => Deno.connect({ hostname: "127.0.0.1", port }), `port ${port}`);
}

function waitForUnix(path: string, proc: Proc): Promise<void> {
  return waitFor(proc, () => Deno.connect({ transport: "unix", path }), path);
}

async function waitFor(proc: Proc, connect: () => Promise<Deno.Conn>, what: string) {
  let exitCode: number | undefined;
  void proc.exited.then((code) => exitCode = code);
  for (let attempt = 0; attempt < 300; attempt++) {
    if (exitCode !== undefined) break;
    try {
      (await connect()).close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  await proc.stop();
  throw new Error(`proxy server not ready on ${what}: ${proc.output().trim().slice(-500)}`);
}

function userinfo({ user, pass }: Credentials): string {
  if (user === undefined) return "";
  const u = encodeURIComponent(user);
  return pass === undefined ? `${u}@` : `${u}:${encodeURIComponent(pass)}@`;
}
