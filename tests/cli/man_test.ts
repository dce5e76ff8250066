/** courier(1) is generated from the help texts, and man renders it without a warning. */
import assert from "node:assert/strict";
import { COMMANDS } from "../../src/cli/commands.ts";
import { runCli } from "../support/cli.ts";
import { requireTool } from "../support/tools.ts";
import { parseMetricsAddress } from "../../src/forward/health_server.ts";

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

/** The page's section `name`, from its `.SH` to the next. */
async function manSection(name: string): Promise<string> {
  const page = (await runCli(["help", "--man"])).stdout;
  const start = page.indexOf(`\n.SH ${name}\n`);
  assert.ok(start >= 0, `a ${name} section`);
  const end = page.indexOf("\n.SH ", start + 1);
  return page.slice(start, end).replaceAll("\\fR", "").replaceAll("\\fB", "").replaceAll(
    "\\fI",
    "",
  );
}

/** Every environment variable the product's code reads by name. */
async function variablesRead(): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        const code = await Deno.readTextFile(path);
        const reads = /(?:env\.get|\benv)\(\s*"([A-Z][A-Z0-9_]+)"|_ENV = "([A-Z][A-Z0-9_]+)"/g;
        for (const m of code.matchAll(reads)) names.add(m[1] ?? m[2]);
      }
    }
  };
  await walk(new URL("../../src", import.meta.url).pathname);
  return names;
}

Deno.test("man page: ENVIRONMENT names every variable courier reads, and TZ", async () => {
  const section = await manSection("ENVIRONMENT");
  const read = await variablesRead();
  for (const name of ["COURIER_BROWSE_TOKEN", "LIBSQL_AUTH_TOKEN", "COURIER_LEASE_TTL"]) {
    assert.ok(read.has(name), `the scan finds ${name}`);
  }
  // Deno's own (DENO_*) are the runtime's business, not courier's.
  const documented = [...read].filter((name) => !name.startsWith("DENO_"));
  for (const name of [...documented, "TZ", "NOTIFY_SOCKET", "CREDENTIALS_DIRECTORY"]) {
    assert.match(section, new RegExp(`^\\.B .*\\b${name}\\b`, "m"), name);
  }
});

Deno.test("man page: FILES names the config, the database, the last-success file, the lock", async () => {
  const section = await manSection("FILES");
  for (
    const file of [
      "./config.yml",
      "<db_dir>/courier.db",
      "<data_dir>/last_success.yml",
      "<data_dir>/courier.lock",
      "/etc/courier/config.yml",
    ]
  ) {
    assert.ok(section.includes(`.I ${file}`), file);
  }
  assert.match(section, /resolve against the config file's directory/);
});

Deno.test("forward --help says what a bare :PORT binds, and that is what it binds", async () => {
  const help = (await runCli(["forward", "--help"])).stdout.replace(/\s+/g, " ");
  assert.match(help, /127\.0\.0\.1:9464 for this machine only/);
  assert.match(help, /a bare :9464 binds every interface/);
  assert.doesNotMatch(help, /:9464 \(loopback\)/);
  assert.equal(parseMetricsAddress(":9464").hostname, "0.0.0.0");
  assert.equal(parseMetricsAddress("127.0.0.1:9464").hostname, "127.0.0.1");
});

Deno.test("status --help says the last success comes from the database", async () => {
  const help = (await runCli(["status", "--help"])).stdout.replace(/\s+/g, " ");
  assert.match(help, /its last success \(time and age, as the database records it\)/);
  assert.doesNotMatch(help, /last-success file/);
});
