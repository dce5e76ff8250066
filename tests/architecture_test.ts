/** ARCHITECTURE.md stays true: what it names exists, and every folder of src/ is named. */
import { assert } from "./support/assert.ts";

const ROOT = new URL("../", import.meta.url);
const text = Deno.readTextFileSync(new URL("ARCHITECTURE.md", ROOT));

function exists(path: string): boolean {
  try {
    Deno.statSync(new URL(path, ROOT));
    return true;
  } catch {
    return false;
  }
}

/** Every `src/...` and `tests/...` path written in backticks. */
const named = [...text.matchAll(/`((?:src|tests)\/[^`\s]*)`/g)].map((m) => m[1]);

Deno.test("architecture: every path it names exists", () => {
  assert(named.length >= 15, `${named.length}`);
  const gone = named.filter((path) => !exists(path));
  assert(gone.length === 0, `ARCHITECTURE.md names what is gone: ${gone.join(", ")}`);
});

Deno.test("architecture: every folder of src/ is in its table", () => {
  const folders: string[] = [];
  for (const entry of Deno.readDirSync(new URL("src/", ROOT))) {
    if (!entry.isDirectory) continue;
    const sub = [...Deno.readDirSync(new URL(`src/${entry.name}/`, ROOT))]
      .filter((e) => e.isDirectory && entry.name === "browse");
    if (sub.length === 0) folders.push(`src/${entry.name}/`);
    for (const s of sub) folders.push(`src/${entry.name}/${s.name}/`);
  }
  const missing = folders.filter((folder) => !named.includes(folder));
  assert(missing.length === 0, `ARCHITECTURE.md does not say what these own: ${missing}`);
});
