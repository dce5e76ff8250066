/**
 * The browse server's V8 flags. Under a stream of small requests V8 grows its young generation
 * to the maximum, and the server's RSS several times its idle size, though little of what it
 * allocates per request outlives the request; with 1 MB semi-spaces it stays small
 * (bench/NOTES.md).
 *
 * V8 takes heap sizes only when the process starts (`node:v8` setFlagsFromString has no
 * effect in Deno, and `deno run` has no config key for them), and other commands must not pay
 * for them (parse is slower with a small young generation). So a browse server that was not
 * started with them replaces its own process image with the same command line and
 * DENO_V8_FLAGS set: execve(2), the same process id and no process left behind, at the cost of
 * a second runtime start. Where that is not possible (not Linux, no FFI permission,
 * a libc that will not load) the server runs as it was started.
 */
export const SERVER_V8_FLAGS = "--max-semi-space-size=1";

/** Why the server keeps its process as started, or null when it should re-exec. */
export function keepProcessReason(
  os: string,
  v8Flags: string | undefined,
  ffi: Deno.PermissionState,
): string | null {
  if (os !== "linux") return "not Linux";
  // Ours after the exec, or the user's own choice of heap size: either way, left alone.
  if (v8Flags !== undefined && /(^|[ ,])--max-semi-space-size[= ]/.test(v8Flags)) {
    return "DENO_V8_FLAGS sets the young generation already";
  }
  if (ffi !== "granted") return "no FFI permission";
  return null;
}

function cString(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${text}\0`);
}

/**
 * Replaces this process with the same command line and SERVER_V8_FLAGS added to
 * DENO_V8_FLAGS. Returns only when it did not (the reason; the caller serves as it is).
 * Call before anything is printed or any child started: the new image inherits the process's
 * id, its children and its open descriptors.
 */
export function execWithServerFlags(): string {
  let v8Flags: string | undefined;
  try {
    v8Flags = Deno.env.get("DENO_V8_FLAGS");
  } catch {
    return "no permission to read DENO_V8_FLAGS";
  }
  const reason = keepProcessReason(
    Deno.build.os,
    v8Flags,
    Deno.permissions.querySync({ name: "ffi" }).state,
  );
  if (reason !== null) return reason;
  let lib: Deno.DynamicLibrary<{ execv: { parameters: ["buffer", "buffer"]; result: "i32" } }>;
  let argv: string[];
  try {
    // The command line exactly as started (deno's own flags included), not just Deno.args.
    const raw = Deno.readTextFileSync("/proc/self/cmdline");
    argv = raw.split("\0").slice(0, -1);
    lib = Deno.dlopen("libc.so.6", { execv: { parameters: ["buffer", "buffer"], result: "i32" } });
  } catch {
    return "cannot read the command line or load libc";
  }
  const strings = argv.map(cString);
  const pointers = new BigUint64Array(strings.length + 1);
  strings.forEach((s, i) => {
    pointers[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(s)));
  });
  try {
    Deno.env.set("DENO_V8_FLAGS", v8Flags ? `${v8Flags},${SERVER_V8_FLAGS}` : SERVER_V8_FLAGS);
  } catch {
    lib.close();
    return "no permission to set DENO_V8_FLAGS";
  }
  lib.symbols.execv(cString(Deno.execPath()), new Uint8Array(pointers.buffer));
  // Only reached when execv failed: put the environment back and serve as started.
  if (v8Flags === undefined) Deno.env.delete("DENO_V8_FLAGS");
  else Deno.env.set("DENO_V8_FLAGS", v8Flags);
  lib.close();
  return "execv failed";
}
