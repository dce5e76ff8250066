/**
 * The config's paths made absolute, as node's path.resolve and path.join make them. POSIX paths
 * are done here: importing node:path starts node's compatibility layer, ~5 ms of every
 * command's start-up. Windows paths (drive letters, UNC, backslashes) take node's own rules,
 * loaded only there.
 */
const windows = Deno.build.os === "windows" ? await import("node:path") : null;

/** `path` against the absolute directory `cwd`; an absolute `path` is kept as written. */
export function absolutePath(path: string, cwd: string): string {
  if (windows) return windows.isAbsolute(path) ? path : windows.resolve(cwd, path);
  return path.startsWith("/") ? path : normalized(`${cwd}/${path}`);
}

/** `name` inside the absolute directory `dir`. */
export function joinPath(dir: string, name: string): string {
  return windows ? windows.join(dir, name) : normalized(`${dir}/${name}`);
}

/** An absolute POSIX path without `.`, `..`, repeated or trailing slashes. */
function normalized(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "" && part !== ".") parts.push(part);
  }
  return `/${parts.join("/")}`;
}
