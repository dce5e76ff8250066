import { parse } from "yaml";

/** The last-success file could not be read or written; the message names the file. */
export class LastSuccessError extends Error {
  override name = "LastSuccessError";
}

/** RFC 3339 in UTC with whole seconds, e.g. `2024-05-01T12:00:00Z`. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Reads the last-success file: feed name → time of its last successful run. A missing file is
 * an empty map; values that are not times are ignored (the file is ours, but users edit files).
 */
export async function readLastSuccess(path: string): Promise<Map<string, Date>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return new Map();
    throw new LastSuccessError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new LastSuccessError(`cannot parse ${path}: ${(error as Error).message.split("\n")[0]}`);
  }
  const map = new Map<string, Date>();
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return map;
  for (const [name, value] of Object.entries(doc as Record<string, unknown>)) {
    const date = value instanceof Date ? value : new Date(String(value));
    if (!Number.isNaN(date.getTime())) map.set(name, date);
  }
  return map;
}

/**
 * Writes `path` so that a reader (or a crash) only ever sees the old or the new file: a temp
 * file in the same directory, flushed to disk, then renamed over the old one.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const slash = path.lastIndexOf("/");
  const dir = slash > 0 ? path.slice(0, slash) : ".";
  const base = path.slice(slash + 1);
  const temp = `${dir}/.${base}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.mkdir(dir, { recursive: true });
    const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o644 });
    try {
      await file.write(new TextEncoder().encode(text));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw new LastSuccessError(`cannot write ${path}: ${(error as Error).message}`);
  }
}

/**
 * Removes the temp files a killed writer of `path` left behind (writeFileAtomic names them
 * `.<name>.<pid>.<random>.tmp`), except this process's own. Only for the holder of the
 * data_dir lock, the file's only writer: any other writer's temp file is from a dead process.
 */
export async function removeStaleTemps(path: string): Promise<void> {
  const slash = path.lastIndexOf("/");
  const dir = slash > 0 ? path.slice(0, slash) : ".";
  const prefix = `.${path.slice(slash + 1)}.`;
  try {
    for await (const entry of Deno.readDir(dir)) {
      const name = entry.name;
      if (!entry.isFile || !name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
      const match = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length));
      if (match && Number(match[1]) !== Deno.pid) await Deno.remove(`${dir}/${name}`);
    }
  } catch {
    // A leftover is only clutter: never let it fail a run.
  }
}

/**
 * The file's text: one `"name": time` line per feed. Names are quoted (JSON strings are YAML)
 * so a feed named `true` or `1e3` reads back as a string.
 */
export function formatLastSuccess(times: Map<string, Date>): string {
  let text = "";
  for (const [name, at] of times) text += `${JSON.stringify(name)}: ${rfc3339(at)}\n`;
  return text;
}

/**
 * The last-success file of one process. `record` updates one feed's time and resolves once a
 * file holding it is in place. Concurrent records are coalesced into one write. The file is
 * read once, by the first write, so other feeds' times are kept; the data_dir lock makes this
 * process its only writer.
 */
export class LastSuccessFile {
  #current: Map<string, Date> | null = null;
  #pending = new Map<string, Date>();
  #waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  #writing: Promise<void> | null = null;

  constructor(readonly path: string) {}

  record(feed: string, at: Date): Promise<void> {
    this.#pending.set(feed, at);
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    if (!this.#writing) this.#writing = this.#drain();
    return done;
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0) {
      const batch = this.#pending;
      const waiters = this.#waiters;
      this.#pending = new Map();
      this.#waiters = [];
      try {
        if (this.#current === null) {
          await removeStaleTemps(this.path);
          this.#current = await readLastSuccess(this.path);
        }
        const next = new Map(this.#current);
        for (const [name, at] of batch) next.set(name, at);
        await writeFileAtomic(this.path, formatLastSuccess(next));
        this.#current = next;
        for (const w of waiters) w.resolve();
      } catch (error) {
        for (const w of waiters) w.reject(error);
      }
    }
    this.#writing = null;
  }
}
