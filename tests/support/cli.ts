import { outputWithin } from "./child.ts";

import { courierArgs } from "./product.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
  stdin?: string;
}

/** Runs the real `courier` entry point in a subprocess, as a user would. */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const command = new Deno.Command(Deno.execPath(), {
    args: courierArgs(...args),
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await outputWithin(child, `courier ${args.join(" ")}`);
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}
