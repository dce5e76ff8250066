/**
 * examples/courier.service: the directives the README promises, then systemd's own judgement
 * when systemd-analyze is installed (Debian `systemd`; .ci/peers.sh installs it): `verify`
 * accepts the unit (with courier(1) from `courier help --man` where man looks), and
 * `security --offline=true` rates its exposure low.
 */
import assert from "node:assert/strict";
import { runCli } from "./support/cli.ts";
import { requireTool } from "./support/tools.ts";

const UNIT = new URL("../examples/courier.service", import.meta.url);
const text = await Deno.readTextFile(UNIT);

/** The unit's `Key=value` lines per section; a key may repeat. */
function directives(unit: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = "";
  for (const line of unit.split("\n")) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) section = header[1];
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) {
      const key = `${section}.${m[1]}`;
      out.set(key, [...(out.get(key) ?? []), m[2]]);
    }
  }
  return out;
}

const analyze = (what: string) => requireTool("systemd-analyze", what);

/** The unit in a temporary directory, its ExecStart pointing at a real executable. */
async function testCopy(): Promise<{ dir: string; unit: string }> {
  const dir = await Deno.makeTempDir();
  const unit = `${dir}/courier.service`;
  await Deno.writeTextFile(unit, text.replaceAll("/usr/local/bin/courier", Deno.execPath()));
  return { dir, unit };
}

Deno.test("systemd unit: notify with a watchdog, a state directory, the sandbox", () => {
  const d = directives(text);
  const one = (key: string) => d.get(key)?.join(" ");
  assert.equal(one("Service.Type"), "notify");
  assert.equal(one("Service.NotifyAccess"), "main");
  assert.match(one("Service.WatchdogSec") ?? "", /^\d+s$/);
  assert.equal(one("Service.StateDirectory"), "courier");
  assert.equal(one("Service.ProtectProc"), "invisible");
  assert.ok(d.get("Service.SystemCallFilter")?.includes("@system-service"));
  assert.equal(one("Service.SystemCallErrorNumber"), "EPERM");
  assert.match(one("Unit.Documentation") ?? "", /man:courier\(1\)/);
  assert.equal(one("Service.ExecReload"), "/bin/kill -HUP $MAINPID");
  assert.equal(one("Service.RestartPreventExitStatus"), "2");
  // The token as a credential, which courier reads from $CREDENTIALS_DIRECTORY.
  assert.match(one("Service.LoadCredential") ?? "", /^messenger_auth_token:\//);
  // The watchdog is pinged at half its period; the grace fits in the stop timeout.
  const grace = Number(/--grace (\d+)/.exec(one("Service.ExecStart") ?? "")?.[1]);
  assert.ok(
    grace < Number.parseInt(one("Service.TimeoutStopSec") ?? "0"),
    "grace < TimeoutStopSec",
  );
});

Deno.test("systemd unit: systemd-analyze verify accepts it", async () => {
  if (!(await analyze("systemd-analyze verify"))) return;
  const { dir, unit } = await testCopy();
  try {
    // Documentation=man:courier(1) is checked too: the page, generated, where MANPATH says.
    await Deno.mkdir(`${dir}/man/man1`, { recursive: true });
    const man = await runCli(["help", "--man"]);
    await Deno.writeTextFile(`${dir}/man/man1/courier.1`, man.stdout);
    const out = await new Deno.Command("systemd-analyze", {
      args: ["verify", unit],
      env: { MANPATH: `${dir}/man` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.deepEqual([out.code, said.trim()], [0, ""]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("systemd unit: systemd-analyze security rates its exposure 2.0 or lower", async () => {
  if (!(await analyze("systemd-analyze security"))) return;
  const { dir, unit } = await testCopy();
  try {
    const out = await new Deno.Command("systemd-analyze", {
      args: ["security", "--offline=true", "--no-pager", unit],
      env: { SYSTEMD_COLORS: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(out.stdout);
    const level = /Overall exposure level for courier\.service: ([\d.]+)/.exec(said);
    assert.ok(level, said + new TextDecoder().decode(out.stderr));
    assert.ok(Number(level[1]) <= 2.0, `exposure ${level[1]}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
