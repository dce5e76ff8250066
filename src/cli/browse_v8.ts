/**
 * The browse server's V8 flags. Under a stream of small requests V8 grows its young generation
 * to the maximum, and the server's RSS several times its idle size, though little of what it
 * allocates per request outlives the request; with 2 MB semi-spaces it stays under 100 MB
 * through `bench browse`, and answers point lookups faster than with 1 MB, which collected
 * twice as often on the server's busiest thread (bench/NOTES.md).
 *
 * V8 takes heap sizes only when the process starts (`node:v8` setFlagsFromString has no
 * effect in Deno, and `deno run` has no config key for them), and other commands must not pay
 * for them (parse is slower with a small young generation). So a browse server that was not
 * started with them replaces its own process image with the same command line and
 * DENO_V8_FLAGS set: execve(2), the same process id and no process left behind, at the cost of
 * a second runtime start. Where that is not possible (not Linux, no FFI permission,
 * a libc that will not load) the server runs as it was started.
 */
export const SERVER_V8_FLAGS = "--max-semi-space-size=2";

/**
 * `courier forward`'s V8 flags. A tick that runs 5,000 feeds allocates fast and keeps little
 * (the live heap after a full collection stays at 20-30 MB), but V8 grows its old generation
 * ahead of the allocation (heapTotal 120 MB, VmHWM 228 MiB in `deno task bench forward`).
 * `--optimize-for-size` makes it grow the heap by smaller steps and collect sooner: VmHWM
 * ~115 MiB for the same tick, at ~40% more CPU on that tick (a steady tick: ~0.7 s against
 * ~0.6 s). The small young generation is the browse server's reason, and the same here.
 * Not a heap limit: a limit would turn a large feed into a crash.
 */
export const FORWARD_V8_FLAGS = "--max-semi-space-size=1,--optimize-for-size";

/**
 * glibc's malloc gives each thread that allocates an arena of its own, which keeps its freed
 * memory; two arenas took ~4 MB off the same tick's VmHWM (`deno task bench forward`: 111 and
 * 115 MB against 115-122 MB). Set for the re-executed image, unless the environment sets it.
 */
export const FORWARD_ENV = { MALLOC_ARENA_MAX: "2" };

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
 * Replaces this process with the same command line and `flags` (which start with the
 * young-generation flag, the sign that the process was re-executed) added to DENO_V8_FLAGS. Returns only when it did not (the reason; the caller serves as it is).
 * Call before anything is printed or any child started: the new image inherits the process's
 * id, its children and its open descriptors.
 */
export function execWithServerFlags(
  flags: string = SERVER_V8_FLAGS,
  /** More variables for the new image, each set only when the environment has none. */
  extraEnv: Record<string, string> = {},
): string {
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
  const added: string[] = [];
  try {
    Deno.env.set("DENO_V8_FLAGS", v8Flags ? `${v8Flags},${flags}` : flags);
    for (const [name, value] of Object.entries(extraEnv)) {
      if (Deno.env.get(name) !== undefined) continue;
      Deno.env.set(name, value);
      added.push(name);
    }
  } catch {
    putBack(v8Flags, added);
    lib.close();
    return "no permission to set DENO_V8_FLAGS";
  }
  lib.symbols.execv(cString(Deno.execPath()), new Uint8Array(pointers.buffer));
  // Only reached when execv failed: put the environment back and serve as started.
  putBack(v8Flags, added);
  lib.close();
  return "execv failed";
}

/** The environment as it was before a re-execution that did not happen. */
function putBack(v8Flags: string | undefined, added: string[]): void {
  try {
    if (v8Flags === undefined) Deno.env.delete("DENO_V8_FLAGS");
    else Deno.env.set("DENO_V8_FLAGS", v8Flags);
    for (const name of added) Deno.env.delete(name);
  } catch {
    // Without permission to change it, nothing was changed.
  }
}
