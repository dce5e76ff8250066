/** README's quick start: its config is valid, and the commands it runs exist with those flags. */
import { parseSettings } from "../../src/config/load.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { runCli } from "../support/cli.ts";

async function quickStart(): Promise<string> {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const start = readme.indexOf("## Quick start");
  assert(start >= 0, "README has a quick start");
  return readme.slice(start, readme.indexOf("\n## ", start + 1));
}

Deno.test("README quick start: the minimal config is valid, with an absolute data_dir", async () => {
  const section = await quickStart();
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert(yaml !== undefined, "a yaml block");
  const settings = parseSettings(yaml.replace(/^ {3}/gm, ""), "config.yml", "/somewhere/else");
  assertEquals(settings.dataDir, "/var/lib/courier");
  assertEquals(settings.feeds.map((f) => f.channel), ["-1001234567890"]);
});

Deno.test("README quick start: every courier command it shows exists with the flags it uses", async () => {
  const section = await quickStart();
  const lines = [...section.matchAll(/^\s*(courier [a-z]+(?: --[a-z-]+)*)/gm)].map((m) => m[1]);
  assertEquals(lines, ["courier validate", "courier once --dry-run", "courier once"]);
  for (const line of lines) {
    const [, command, ...flags] = line.split(" ");
    const r = await runCli([command, "--help"]);
    assertEquals(r.code, 0, `${line}: ${r.stderr}`);
    for (const flag of flags) assert(r.stdout.includes(flag), `${command} documents ${flag}`);
  }
});
