/**
 * A TCP-to-unix-socket relay, so a client that only speaks TCP can reach a server on a unix
 * socket (Deno's HTTP client cannot use a SOCKS proxy on a unix socket).
 */

export interface Relay {
  /** The 127.0.0.1 port the relay listens on. */
  port: number;
  /** Closes the listener and every relayed connection. */
  stop(): Promise<void>;
}

/** A TCP listener on 127.0.0.1 that pipes every connection to the unix socket at `path`. */
export function startUnixRelay(path: string): Relay {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const piping = new Set<Promise<void>>();
  let stopping: Promise<void> | undefined;

  const acceptLoop = (async () => {
    while (stopping === undefined) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        // Closed by stop(), or a transient failure such as too many open files: back off.
        if (stopping === undefined) await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const done = pipeToUnix(conn, path, open);
      piping.add(done);
      void done.finally(() => piping.delete(done));
    }
  })();

  return {
    port: (listener.addr as Deno.NetAddr).port,
    stop: () =>
      stopping ??= (async () => {
        listener.close();
        for (const conn of open) closeQuietly(conn);
        await acceptLoop;
        await Promise.allSettled([...piping]);
      })(),
  };
}

/**
 * Copies bytes both ways between `conn` and a fresh connection to the socket. Never rejects:
 * a failure (socket missing, peer reset) just closes both ends, which the client reports as a
 * failed request.
 */
async function pipeToUnix(conn: Deno.Conn, path: string, open: Set<Deno.Conn>): Promise<void> {
  open.add(conn);
  let upstream: Deno.Conn | undefined;
  try {
    upstream = await Deno.connect({ transport: "unix", path });
    open.add(upstream);
    const peer = upstream;
    // A failure one way (reset, closed by stop()) ends the other way too, so neither read hangs.
    const abort = () => {
      closeQuietly(conn);
      closeQuietly(peer);
    };
    await Promise.all([copy(conn, peer).catch(abort), copy(peer, conn).catch(abort)]);
  } catch {
    // the socket is absent or refused; closing `conn` tells the client
  } finally {
    open.delete(conn);
    closeQuietly(conn);
    if (upstream) {
      open.delete(upstream);
      closeQuietly(upstream);
    }
  }
}

/**
 * Copies `from` to `to`, then half-closes `to` so a reply can still come back the other way.
 * Plain read/write, not streams: a Deno.Conn's readable closes the whole connection at
 * end-of-stream and closing its writable does too, which would cut that reply off. A slow `to`
 * holds the reads (back-pressure); each read and write is a system call, so a relay of large
 * answers reads in large pieces. `seen` sees each piece, and may return what to send instead.
 */
export async function copy(
  from: Deno.Conn,
  to: Deno.Conn,
  bufferSize = 64 * 1024,
  seen?: (bytes: Uint8Array) => Uint8Array | void,
): Promise<void> {
  const buf = new Uint8Array(bufferSize);
  for (;;) {
    const n = await from.read(buf);
    if (n === null) break;
    const out = seen?.(buf.subarray(0, n)) || buf.subarray(0, n);
    for (let off = 0; off < out.length;) off += await to.write(out.subarray(off));
  }
  await to.closeWrite();
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed, e.g. by pipeTo finishing
  }
}
