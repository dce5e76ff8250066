/**
 * How the product's processes start, so tests and the bench start courier the same way: the V8
 * flags the binary is compiled with (deno.json's `compile` task; `COURIER_BENCH_V8_FLAGS` tries
 * others) and the environment the systemd unit sets (examples/courier.service).
 */
const ROOT = new URL("../../", import.meta.url);

function compiledFlags(): string {
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT)));
  const flags = /--v8-flags=(\S+)/.exec(config.tasks.compile)?.[1];
  if (flags === undefined) throw new Error("deno.json's compile task names no --v8-flags");
  return flags;
}

function unitEnvironment(): Record<string, string> {
  const unit = Deno.readTextFileSync(new URL("examples/courier.service", ROOT));
  const env: Record<string, string> = {};
  for (const [, name, value] of unit.matchAll(/^Environment=(\w+)=(\S*)$/gm)) env[name] = value;
  return env;
}

export const PRODUCT_V8_FLAGS = Deno.env.get("COURIER_BENCH_V8_FLAGS") ?? compiledFlags();
export const PRODUCT_ENV = unitEnvironment();

const MAIN = new URL("main.ts", ROOT).pathname;

/** `deno run` arguments for `courier ARGS` as the binary runs it. */
export function courierArgs(...args: string[]): string[] {
  return ["run", "-A", "--quiet", `--v8-flags=${PRODUCT_V8_FLAGS}`, MAIN, ...args];
}
