/**
 * examples/courier.service: the directives the README promises, then systemd's own judgement
 * when systemd-analyze is installed (Debian `systemd`; .ci/peers.sh installs it): `verify`
 * accepts the unit installed as its header says (courier(1) included), and
 * `security --offline=true` rates its exposure low.
 */
import assert from "node:assert/strict";
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

/** The install commands of the unit's header, one a line, as a user would paste them. */
function installSteps(unit: string): string[] {
  const header = unit.slice(0, unit.indexOf("\n\n"));
  const block = header.split("\n#\n")[1];
  return block.split("\n").map((line) => line.replace(/^#\s+/, "")).filter((line) => line !== "");
}

Deno.test("systemd unit: its header installs the binary, the man page, the config and the token", () => {
  const steps = installSteps(text);
  assert.ok(steps.some((s) => s.startsWith("sudo install -m 0755 dist/courier /usr/local/bin/")));
  assert.ok(steps.some((s) => s.includes("courier help --man") && s.includes("/man1/courier.1")));
  assert.ok(steps.some((s) => s.includes("examples/courier.service /etc/systemd/system/")));
  assert.ok(steps.at(-1)?.startsWith("sudo systemctl enable --now courier"));
});

Deno.test("systemd unit: installed as its header says, systemd-analyze verify accepts it", async () => {
  if (!(await analyze("systemd-analyze verify"))) return;
  // Every step runs for real, under a root of its own: absolute paths are moved under ROOT, the
  // group is the test's own, and the steps that need a running systemd or root (useradd,
  // systemctl) are left out. Then systemd judges the unit where the steps put it, with man
  // looking where the steps put the page (a place man searches by default, checked below).
  const root = await Deno.makeTempDir();
  const work = await Deno.makeTempDir();
  try {
    const repo = new URL("../", import.meta.url).pathname;
    // What every system has; nothing more (/usr/local/share/man/man1 is the steps' to make).
    for (const dir of ["usr/local/bin", "etc/systemd/system"]) {
      await Deno.mkdir(`${root}/${dir}`, { recursive: true });
    }
    await Deno.mkdir(`${work}/examples`);
    await Deno.copyFile(`${repo}examples/courier.service`, `${work}/examples/courier.service`);
    await Deno.mkdir(`${work}/dist`);
    // dist/courier: the courier of this checkout, as `deno task compile` would leave it.
    await Deno.writeTextFile(
      `${work}/dist/courier`,
      `#!/bin/sh\nexec ${Deno.execPath()} run --allow-all --quiet ${repo}main.ts "$@"\n`,
    );
    await Deno.chmod(`${work}/dist/courier`, 0o755);
    await Deno.writeTextFile(`${work}/config.yml`, "data_dir: /var/lib/courier\n");
    const group = new TextDecoder().decode(
      (await new Deno.Command("id", { args: ["-gn"], stdout: "piped" }).output()).stdout,
    ).trim();
    const skipped = /^sudo (useradd|systemctl) /;
    const script = installSteps(text).filter((step) => !skipped.test(step)).map((step) =>
      step.replaceAll("sudo ", "")
        .replaceAll("-g courier", `-g ${group}`)
        .replace(/(?<=\s)\/(etc|usr)\//g, `${root}/$1/`)
    );
    assert.equal(script.length, 6, script.join("\n"));
    const run = await new Deno.Command("bash", {
      args: ["-euo", "pipefail", "-c", script.join("\n")],
      cwd: work,
      env: { PATH: `${root}/usr/local/bin:${Deno.env.get("PATH")}`, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));

    const installed = `${root}/etc/systemd/system/courier.service`;
    // ExecStart names /usr/local/bin/courier, which the steps put under ROOT.
    await Deno.writeTextFile(
      installed,
      (await Deno.readTextFile(installed)).replaceAll(
        "/usr/local/bin/courier",
        `${root}/usr/local/bin/courier`,
      ),
    );
    const manDir = "/usr/local/share/man";
    await Deno.stat(`${root}${manDir}/man1/courier.1`);
    const searched = new TextDecoder().decode(
      (await new Deno.Command("manpath", { args: ["-g"], stdout: "piped", stderr: "null" })
        .output()).stdout,
    );
    assert.ok(searched.trim().split(":").includes(manDir), `man searches ${manDir}: ${searched}`);
    const out = await new Deno.Command("systemd-analyze", {
      args: ["verify", installed],
      env: { MANPATH: `${root}${manDir}` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.deepEqual([out.code, said.trim()], [0, ""]);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(work, { recursive: true });
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
