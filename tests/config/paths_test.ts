import assert from "node:assert/strict";
import { posix } from "node:path";
import { absolutePath, joinPath } from "../../src/config/paths.ts";

// node's path module is the reference; courier reads POSIX paths without loading it.

const DIRS = ["/", "/srv", "/srv/courier/", "//srv//x", "/a/./b/../c", "/a/..", "/..", "/a b/ü"];
const PATHS = [
  "",
  ".",
  "./",
  "..",
  "../..",
  "../../../../x",
  "data",
  "data/",
  "./data//state/",
  "a/./b/../c",
  ".hidden",
  "...",
  "a..b/..c",
  "/abs",
  "/abs/../x/",
  "//x",
  "~/x",
  "a\\b",
];

Deno.test(
  "paths: relative config paths resolve against the directory as node's path.resolve does",
  { ignore: Deno.build.os === "windows" },
  () => {
    for (const dir of DIRS) {
      for (const path of PATHS) {
        const expected = posix.isAbsolute(path) ? path : posix.resolve(dir, path);
        assert.equal(absolutePath(path, dir), expected, JSON.stringify({ dir, path }));
      }
    }
  },
);

Deno.test(
  "paths: a name inside an absolute directory is node's path.join",
  { ignore: Deno.build.os === "windows" },
  () => {
    for (const dir of DIRS) {
      for (const name of ["feed_data", "last_success.yml", "../x", "./y"]) {
        assert.equal(joinPath(dir, name), posix.join(dir, name), dir + " " + name);
      }
    }
  },
);
