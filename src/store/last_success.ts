import { basename, dirname } from "node:path";
import { readYaml, TEXT_SCHEMA, YamlSyntaxError } from "../config/yaml.ts";
import { formatRfc3339 } from "../time/rfc3339.ts";
import { type Clock, realClock, type TimerId } from "../time/clock.ts";

/** The last-success file could not be read or written; the message names the file. */
export class LastSuccessError extends Error {
  override name = "LastSuccessError";
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
  return timesOf(readTimes(path, text));
}

/** Feed name → time, from the file's plain values; values that are not times are left out. */
function timesOf(doc: unknown): Map<string, Date> {
  const map = new Map<string, Date>();
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return map;
  for (const [name, value] of Object.entries(doc as Record<string, unknown>)) {
    const date = new Date(String(value));
    if (!Number.isNaN(date.getTime())) map.set(name, date);
  }
  return map;
}

/** The file's YAML as plain values, every value as its text; a syntax error is one line. */
function readTimes(path: string, text: string): unknown {
  try {
    return readYaml(text, TEXT_SCHEMA);
  } catch (error) {
    if (!(error instanceof YamlSyntaxError)) throw error;
    throw new LastSuccessError(
      `${path}:${error.line}:${error.col}: cannot parse the last-success file: ${error.message}`,
    );
  }
}

/**
 * Writes `path` so that a reader (or a crashed writer) only ever sees the old or the new file:
 * a temp file in the same directory, renamed over the old one (LastSuccessFile.flush makes it
 * durable). `makeDir` creates the directory first.
 */
async function writeFileAtomic(path: string, text: string, makeDir: boolean): Promise<void> {
  const dir = dirname(path);
  const temp = `${dir}/.${basename(path)}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    if (makeDir) await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(temp, text, { createNew: true, mode: 0o644 });
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw new LastSuccessError(`cannot write ${path}: ${(error as Error).message}`);
  }
}

/** Flushes a file, or a directory's entries (a rename in it), to disk. */
async function syncToDisk(path: string): Promise<void> {
  const handle = await Deno.open(path, { read: true });
  try {
    await handle.sync();
  } finally {
    handle.close();
  }
}

/**
 * Removes the temp files a killed writer of `path` left behind (writeFileAtomic names them
 * `.<name>.<pid>.<random>.tmp`), except this process's own. Only for the holder of the
 * data_dir lock, the file's only writer: any other writer's temp file is from a dead process.
 */
async function removeStaleTemps(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
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
 * One feed's line of the file, `"name": time`. Names are quoted (JSON strings are YAML) so a
 * feed named `true` or `1e3` reads back as a string.
 */
function formatLine(name: string, at: Date): string {
  return `${JSON.stringify(name)}: ${formatRfc3339(at, { wholeSeconds: true })}\n`;
}

/**
 * The last-success file of one process. `record` updates one feed's time and resolves once a
 * file holding it is in place. Records are coalesced: the ones that come while a write is under
 * way, or within `spacingMs` of the start of the last write, are written together by the next
 * one. Each write costs CPU, mostly the kernel's (create, write, rename over the old file, which
 * on ext4 starts writing the new one back at once), and a steady-state run of many unchanged
 * feeds finishing together wrote the file dozens of times unspaced. A second apart, a kill loses
 * at most a second's times, which only costs a catch-up run that finds nothing new.
 * `writeNow` (a caller that knows no more records are coming) and `flush` skip the wait. Other
 * feeds' times are kept: the first write starts from `known` (the database's record, which the
 * runtime has read anyway), or else reads the file.
 *
 * Every write is atomic (temp file + rename), but only `flush`, at the end of a run, makes the
 * newest file durable (fsync of the file, then of the directory, once): a completed rename
 * survives the process being killed (SIGKILL, a crash) because the page cache outlives the
 * process; only a power loss can take back the newest times, and an older time only causes a
 * harmless catch-up run that finds nothing new. Syncing every write cost a disk flush per feed.
 */
export class LastSuccessFile {
  /** Each feed's line as last written, in file order; null until the file was read. */
  #lines: Map<string, string> | null = null;
  #pending = new Map<string, Date>();
  /**
   * Settles once a file holds the records pending now: one promise for all of them, which a
   * tick of thousands of feeds all wait on.
   */
  #written: PromiseWithResolvers<void> | null = null;
  #writing: Promise<void> | null = null;
  /** The next write, waiting for its slot. */
  #timer: TimerId | undefined;
  #lastWriteAt = -Infinity;
  /** writeNow was called: what is pending goes as soon as the write under way ends. */
  #urgent = false;
  /** Whether a write since the last flush is not yet on disk. */
  #unsynced = false;
  readonly #spacingMs: number;
  readonly #clock: Clock;

  /** The times the first write starts from, when the caller knows them. */
  readonly #known: ReadonlyMap<string, Date> | undefined;

  constructor(
    readonly path: string,
    options: { spacingMs?: number; clock?: Clock; known?: ReadonlyMap<string, Date> } = {},
  ) {
    this.#spacingMs = options.spacingMs ?? DEFAULT_SPACING_MS;
    this.#clock = options.clock ?? realClock;
    this.#known = options.known;
  }

  record(feed: string, at: Date): Promise<void> {
    this.#pending.set(feed, at);
    const written = this.#written ??= Promise.withResolvers();
    this.#schedule(false);
    return written.promise;
  }

  /** Writes what is recorded and not yet written without waiting for the next slot. */
  writeNow(): void {
    this.#urgent = true;
    this.#schedule(true);
  }

  /** Writes what is pending, waits for the writes under way, then makes the file durable. */
  async flush(): Promise<void> {
    while (this.#writing || this.#pending.size > 0) {
      this.#schedule(true);
      await this.#writing;
    }
    if (!this.#unsynced) return;
    try {
      await syncToDisk(this.path);
      await syncToDisk(dirname(this.path));
    } catch (error) {
      throw new LastSuccessError(`cannot write ${this.path}: ${(error as Error).message}`);
    }
    this.#unsynced = false;
  }

  /** Starts the next write now, or when its slot comes (a write under way starts it after). */
  #schedule(now: boolean): void {
    if (this.#pending.size === 0 || this.#writing) return;
    const wait = now || this.#urgent
      ? 0
      : this.#lastWriteAt + this.#spacingMs - this.#clock.monotonic();
    if (wait > 0) {
      this.#timer ??= this.#clock.setTimeout(() => {
        this.#timer = undefined;
        this.#schedule(true);
      }, wait);
      return;
    }
    if (this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#writing = this.#write();
  }

  async #write(): Promise<void> {
    this.#lastWriteAt = this.#clock.monotonic();
    this.#urgent = false;
    const batch = this.#pending;
    const written = this.#written;
    this.#pending = new Map();
    this.#written = null;
    try {
      const first = this.#lines === null;
      if (first) await removeStaleTemps(this.path);
      const lines = new Map(this.#lines ?? []);
      if (first) {
        for (const [name, at] of this.#known ?? await readLastSuccess(this.path)) {
          lines.set(name, formatLine(name, at));
        }
      }
      for (const [name, at] of batch) lines.set(name, formatLine(name, at));
      let text = "";
      for (const line of lines.values()) text += line;
      await writeFileAtomic(this.path, text, first);
      this.#lines = lines;
      this.#unsynced = true;
      written?.resolve();
    } catch (error) {
      written?.reject(error);
    } finally {
      this.#writing = null;
    }
    // Records that came meanwhile: their slot is spacingMs after this write's start.
    this.#schedule(false);
  }
}

/** Writes start at least this far apart (records in between are written together). */
const DEFAULT_SPACING_MS = 1000;
