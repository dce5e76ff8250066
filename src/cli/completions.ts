import type { Command } from "./command.ts";

export const completionsCommand: Command = {
  name: "completions",
  summary: "print a shell completion script (bash, zsh or fish)",
  help: `Usage: courier completions bash|zsh|fish

Prints a script that completes courier's commands, options and their values in the shell.
Load it from your shell's start-up file:
  bash:  source <(courier completions bash)           # in ~/.bashrc
  zsh:   source <(courier completions zsh)            # in ~/.zshrc, after compinit
  fish:  courier completions fish | source            # in ~/.config/fish/config.fish
or save it where the shell looks for completions (e.g.
/usr/share/bash-completion/completions/courier).

Exit codes: 0 printed, 2 usage error (an unknown shell).`,
  // The implementation is loaded only when this command runs.
  run: async (argv, { commands }) => (await import("./completions_run.ts")).run(argv, commands),
};
