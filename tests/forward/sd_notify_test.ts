/** The systemd notify protocol's pure parts and refusals; the real exchange is in forward_test. */
import assert from "node:assert/strict";
import { openNotifier, watchdogInterval } from "../../src/forward/sd_notify.ts";

const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("sd_notify: the watchdog is pinged at half its period, and only by the process it names", () => {
  assert.equal(watchdogInterval(envOf({ WATCHDOG_USEC: "60000000" }), 42), 30_000);
  assert.equal(
    watchdogInterval(envOf({ WATCHDOG_USEC: "60000000", WATCHDOG_PID: "42" }), 42),
    30_000,
  );
  assert.equal(watchdogInterval(envOf({ WATCHDOG_USEC: "60000000", WATCHDOG_PID: "7" }), 42), null);
  assert.equal(watchdogInterval(envOf({}), 42), null);
  assert.equal(watchdogInterval(envOf({ WATCHDOG_USEC: "0" }), 42), null);
  assert.equal(watchdogInterval(envOf({ WATCHDOG_USEC: "soon" }), 42), null);
});

Deno.test("sd_notify: no $NOTIFY_SOCKET is no notifier; an abstract one is refused with a reason", () => {
  assert.equal(openNotifier(envOf({})), null);
  assert.deepEqual(openNotifier(envOf({ NOTIFY_SOCKET: "@/org/freedesktop/systemd1/notify" })), {
    unusable: "an abstract socket, which Deno cannot address",
  });
});

Deno.test("sd_notify: a socket that went away is not an error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const notifier = openNotifier(envOf({ NOTIFY_SOCKET: `${dir}/gone` }));
    assert.ok(notifier !== null && !("unusable" in notifier));
    await notifier.send("READY=1");
    notifier.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
