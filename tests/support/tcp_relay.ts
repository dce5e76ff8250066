/**
 * A TCP relay on loopback in front of a server, that a test can cut: `hold` stops every byte
 * in both directions (a partition where packets are held: connections stay open, nothing
 * arrives), `refuse` closes every connection and cuts each new one at once, counting them (the
 * client's attempts: a test waits for them, not for time), `heal` lets everything through
 * again. Only the
 * client that is given the relay's address is cut off; the relay is not the thing under test.
 */
export interface TcpRelay {
  port: number;
  /** `http://127.0.0.1:<relay port>`. */
  url: string;
  hold(): void;
  refuse(): void;
  heal(): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections cut at once while refusing. */
  readonly refused: number;
  /** Resolves once `count` connections have been refused. */
  untilRefused(count: number): Promise<void>;
  close(): Promise<void>;
}

export function startTcpRelay(targetPort: number): TcpRelay {
  const open = new Set<Deno.Conn>();
  let gate: Promise<void> = Promise.resolve();
  let release: (() => void) | null = null;
  let accepted = 0;
  let refused = 0;
  let refusing = false;
  const refusals: { count: number; resolve: () => void }[] = [];

  const pump = async (from: Deno.Conn, to: Deno.Conn) => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await from.read(buffer);
        if (n === null) break;
        // Held: the bytes read wait here, and nothing more is read meanwhile.
        await gate;
        let written = 0;
        while (written < n) written += await to.write(buffer.subarray(written, n));
      }
    } catch {
      // A connection closed by `refuse` or by either side.
    }
    for (const conn of [from, to]) {
      if (open.delete(conn)) {
        try {
          conn.close();
        } catch { /* closed already */ }
      }
    }
  };

  const serve = async (l: Deno.Listener) => {
    for (;;) {
      let client: Deno.Conn;
      try {
        client = await l.accept();
      } catch {
        return;
      }
      accepted++;
      if (refusing) {
        refused++;
        client.close();
        for (const r of refusals.filter((r) => r.count <= refused)) {
          refusals.splice(refusals.indexOf(r), 1);
          r.resolve();
        }
        continue;
      }
      let server: Deno.Conn;
      try {
        server = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
      } catch {
        client.close();
        continue;
      }
      open.add(client);
      open.add(server);
      pump(client, server);
      pump(server, client);
    }
  };

  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  serve(listener);
  const port = (listener.addr as Deno.NetAddr).port;

  const closeAll = () => {
    for (const conn of open) {
      try {
        conn.close();
      } catch { /* closed already */ }
    }
    open.clear();
  };

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get refused() {
      return refused;
    },
    untilRefused(count) {
      if (refused >= count) return Promise.resolve();
      return new Promise((resolve) => refusals.push({ count, resolve }));
    },
    hold() {
      if (release) return;
      gate = new Promise((resolve) => release = resolve);
    },
    refuse() {
      refusing = true;
      closeAll();
    },
    heal() {
      refusing = false;
      release?.();
      release = null;
      gate = Promise.resolve();
    },
    close() {
      release?.();
      listener.close();
      closeAll();
      return Promise.resolve();
    },
  };
}
