/** courier(1) is generated from the help texts, and man renders it without a warning. */
import assert from "node:assert/strict";
import { COMMANDS } from "../../src/cli/commands.ts";
import { runCli } from "../support/cli.ts";
import { requireTool } from "../support/tools.ts";

/** What roff prints for a line of the page's source (our escapes undone). */
const unescape = (line: string) => line.replace(/^\\&/, "").replaceAll("\\e", "\\");

Deno.test("man page: every command's --help is in it, word for word", async () => {
  const r = await runCli(["help", "--man"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\.TH COURIER 1 /);
  const source = r.stdout.split("\n").map(unescape).join("\n");
  for (const command of COMMANDS) {
    assert.ok(
      source.includes(`.SS "courier ${command.name}"\n.nf\n${command.help}\n.fi`),
      command.name,
    );
    // The same text `courier <command> --help` prints.
    const help = await runCli([command.name, "--help"]);
    assert.equal(help.stdout.trimEnd(), command.help, command.name);
  }
});

Deno.test("man page: man renders it without a warning", async () => {
  if (!(await requireTool("man", "rendering the man page"))) return;
  const page = await Deno.makeTempFile({ suffix: ".1" });
  try {
    await Deno.writeTextFile(page, (await runCli(["help", "--man"])).stdout);
    const out = await new Deno.Command("man", {
      args: ["--warnings", "-l", page],
      env: { MANWIDTH: "100", MANPAGER: "cat", PAGER: "cat" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(stderr, "", "no roff warnings");
    const text = new TextDecoder().decode(out.stdout);
    assert.match(text, /^COURIER\(1\)/);
    assert.match(text, /courier forward \[-c FILE\]/);
    assert.match(text, /--metrics ADDR/);
    assert.match(text, /COURIER_MESSENGER_AUTH_TOKEN/);
  } finally {
    await Deno.remove(page);
  }
});
