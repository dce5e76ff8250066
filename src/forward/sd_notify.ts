/**
 * systemd's notify protocol (sd_notify(3)) for `Type=notify` and `WatchdogSec=`: datagrams such
 * as `READY=1` or `WATCHDOG=1` sent to the unix socket named by `$NOTIFY_SOCKET`.
 *
 * Deno reaches it with `Deno.listenDatagram({ transport: "unixpacket" })` (a SOCK_DGRAM unix
 * socket; unstable, enabled by `"unstable": ["net"]` in deno.json, which `deno compile` keeps).
 * Deno can only send from a socket bound to a path, so one is bound in a fresh temporary
 * directory that is removed at once: the socket keeps working, and nothing is left behind, even
 * after a kill -9. systemd knows the sender by its credentials, not its address. An abstract
 * socket (`@name`) cannot be addressed from Deno; courier then says so and runs without.
 */

export interface Notifier {
  /** Sends one message (lines `KEY=value`); a socket gone away is ignored. */
  send(state: string): Promise<void>;
  close(): void;
}

/**
 * How often to ping the watchdog, in ms: half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3)
 * advises; null when there is no watchdog, or it is meant for another process (`$WATCHDOG_PID`).
 */
export function watchdogInterval(
  env: (name: string) => string | undefined,
  pid: number,
): number | null {
  const usec = Number(env("WATCHDOG_USEC"));
  if (!Number.isSafeInteger(usec) || usec <= 0) return null;
  const forPid = env("WATCHDOG_PID");
  if (forPid !== undefined && forPid !== "" && Number(forPid) !== pid) return null;
  return Math.max(1, Math.floor(usec / 2000));
}

/** A notifier for `$NOTIFY_SOCKET`, null when it is not set, or why it cannot be used. */
export function openNotifier(
  env: (name: string) => string | undefined,
): Notifier | null | { unusable: string } {
  const path = env("NOTIFY_SOCKET");
  if (path === undefined || path === "") return null;
  if (path.startsWith("@")) {
    return { unusable: "an abstract socket, which Deno cannot address" };
  }
  // Unstable: present only with "unstable": ["net"].
  if (typeof Deno.listenDatagram !== "function") {
    return { unusable: "this Deno was started without unstable net (Deno.listenDatagram)" };
  }
  let socket: Deno.DatagramConn;
  const dir = Deno.makeTempDirSync({ prefix: "courier-notify-" });
  try {
    socket = Deno.listenDatagram({ path: `${dir}/socket`, transport: "unixpacket" });
  } catch (error) {
    return { unusable: `cannot open a unix datagram socket: ${(error as Error).message}` };
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
  const encoder = new TextEncoder();
  return {
    async send(state) {
      try {
        await socket.send(encoder.encode(state), { path, transport: "unixpacket" });
      } catch {
        // systemd gone (a stop under way) or the socket replaced: nothing to tell anyone.
      }
    },
    close: () => socket.close(),
  };
}
