/**
 * `courier completions bash|zsh|fish`: each script, printed by the real CLI, is loaded in the
 * real shell, which is then asked for completions. bash always; zsh and fish when installed
 * (.ci/peers.sh installs them).
 */
import assert from "node:assert/strict";
import { COMMANDS } from "../../src/cli/commands.ts";
import { runCli } from "../support/cli.ts";
import { requireTool } from "../support/tools.ts";

async function script(shell: string): Promise<string> {
  const r = await runCli(["completions", shell]);
  assert.equal(r.code, 0, r.stderr);
  const path = await Deno.makeTempFile({ suffix: `.${shell}` });
  await Deno.writeTextFile(path, r.stdout);
  return path;
}

async function shellOutput(shell: string, args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command(shell, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stderr, "", `${shell} said something while loading: ${stderr}`);
  return new TextDecoder().decode(out.stdout);
}

/** A config whose feeds are written in the ways YAML allows: the names --feed completes. */
const FEEDS_CONFIG = `# name: not-a-feed
feeds:
  - name: news   # the main one
    url: https://a.example/feed.xml
  - url: https://b.example/feed.xml
    name: blog.2
  - name: "quoted"
`;

Deno.test("completions: bash completes commands, options and their values", async () => {
  const path = await script("bash");
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/config.yml`, "");
  await Deno.mkdir(`${dir}/etc`);
  await Deno.writeTextFile(`${dir}/etc/c.yml`, FEEDS_CONFIG);
  try {
    // Each case: the words typed so far (the last one being completed) and the answer.
    const cases: [string[], string[]][] = [
      [["courier", "forw"], ["forward"]],
      [["courier", ""], [
        ...COMMANDS.map((c) => c.name),
        "help",
        "--log-format",
        "--help",
        "-h",
        "--version",
        "-V",
      ]],
      [["courier", "forward", "--con"], ["--config", "--concurrency"]],
      [["courier", "validate", "--j"], ["--json"]],
      [["courier", "once", "--log-level", ""], ["debug", "info", "warn", "error"]],
      [["courier", "status", "--log-format", "j"], ["json"]],
      [["courier", "preview", "--type", ""], ["rss", "atom"]],
      [["courier", "completions", ""], ["bash", "zsh", "fish"]],
      [["courier", "help", "sch"], ["schema"]],
      [["courier", "once", "-c", "conf"], ["config.yml"]],
      // --feed: the names of the config's feeds, from the config the line names.
      [["courier", "once", "-c", "etc/c.yml", "--feed", ""], ["news", "blog.2", "quoted"]],
      [["courier", "preview", "x.xml", "--config=etc/c.yml", "--feed", "b"], ["blog.2"]],
      [["courier", "once", "--feed", ""], []],
      // A free value (a port) offers nothing rather than options.
      [["courier", "forward", "--metrics", ""], []],
    ];
    const program = cases.map(([words]) => {
      const quoted = words.map((w) => `'${w}'`).join(" ");
      return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _courier; ` +
        `printf '%s\\n' "\${COMPREPLY[*]}"`;
    }).join("\n");
    const out = await shellOutput("bash", [
      "--norc",
      "--noprofile",
      "-c",
      `source '${path}'\n${program}`,
    ], dir);
    const got = out.split("\n").slice(0, cases.length);
    cases.forEach(([words, want], i) => {
      assert.deepEqual(got[i].split(" ").filter((w) => w !== ""), want, words.join(" "));
    });
    // `complete` registered the function for the command.
    const registered = await shellOutput("bash", [
      "--norc",
      "--noprofile",
      "-c",
      `source '${path}'; complete -p courier`,
    ]);
    assert.equal(registered.trim(), "complete -o default -F _courier courier");
  } finally {
    await Deno.remove(path);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("completions: fish completes commands and option values", async () => {
  if (!(await requireTool("fish", "the fish completion test"))) return;
  const path = await script("fish");
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/c.yml`, FEEDS_CONFIG);
  try {
    const out = await shellOutput("fish", [
      "--no-config",
      "-c",
      `source '${path}'; complete -C'courier forw'; echo ==; complete -C'courier once --log-level '; echo ==; complete -C'courier completions '; echo ==; complete -C'courier once -c ${dir}/c.yml --feed '`,
    ]);
    const [command, levels, shells, feeds] = out.split("==\n").map((part) =>
      part.trim().split("\n").map((line) => line.split("\t")[0])
    );
    assert.deepEqual(command, ["forward"]);
    assert.deepEqual(levels.sort(), ["debug", "error", "info", "warn"]);
    assert.deepEqual(shells.sort(), ["bash", "fish", "zsh"]);
    assert.deepEqual(feeds.sort(), ["blog.2", "news", "quoted"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(path);
  }
});

Deno.test("completions: zsh loads the script and registers it for courier", async () => {
  if (!(await requireTool("zsh", "the zsh completion test"))) return;
  const path = await script("zsh");
  const home = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command("zsh", {
      // As a .zshrc loads it: compinit first (the script never runs it itself).
      args: [
        "-f",
        "-c",
        `autoload -Uz compinit && compinit -D && source '${path}' && ` +
        `print -r -- "\${_comps[courier]}"`,
      ],
      env: { HOME: home, ZDOTDIR: home },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(
      new TextDecoder().decode(out.stdout).trim(),
      "_bash_complete -o default -F _courier",
    );
    // Without compinit: one line saying what to do, and nothing initialised behind the back.
    const bare = await new Deno.Command("zsh", {
      args: ["-f", "-c", `source '${path}'; print -r -- "\${+functions[compdef]}"`],
      env: { HOME: home, ZDOTDIR: home },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(
      new TextDecoder().decode(bare.stderr).trim(),
      "courier completions: run 'autoload -Uz compinit && compinit' before loading this",
    );
    assert.equal(new TextDecoder().decode(bare.stdout).trim(), "0");
    assert.ok(!(await Deno.readTextFile(path)).includes("compinit -u"));
  } finally {
    await Deno.remove(path);
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("completions: an unknown shell is one usage line", async () => {
  const r = await runCli(["completions", "tcsh"]);
  assert.deepEqual([r.code, r.stdout, r.stderr.trim()], [
    2,
    "",
    'courier completions: expected one of bash, zsh, fish, got "tcsh"',
  ]);
});
