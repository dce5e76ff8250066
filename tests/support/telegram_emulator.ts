/**
 * npm's telegram-test-api, the second opinion on the Bot API, run as a script of
 * tests/support/telegram_test_api/ in a process of its own with that folder's lock file (see
 * check.ts there for why).
 */
const DIR = new URL("./telegram_test_api/", import.meta.url).pathname;

export function emulatorProcess(
  script: "check.ts" | "serve.ts",
  stdin: "null" | "piped" = "null",
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-config",
      `--lock=${DIR}deno.lock`,
      "--frozen",
      "--allow-all",
      "--quiet",
      `${DIR}${script}`,
    ],
    env: { NO_COLOR: "1" },
    stdin,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
