/**
 * The data directory cannot be taken. Another process holding it exits 1, like a failed run
 * (it may work on a retry); a directory that cannot be created or a lock file that cannot be
 * opened is the host's or the config's to fix: exit 2, which the shipped unit and compose
 * file do not restart.
 */
export class LockError extends Error {
  override name = "LockError";
  constructor(message: string, readonly exitCode: 1 | 2 = 1) {
    super(message);
  }
}

export const LOCK_FILE = "courier.lock";

/** A held lock on a data directory; release it when the work is done. */
export interface DataDirLock {
  path: string;
  /** The pid written by a previous holder that is gone (a stale lock taken over), if any. */
  takenOverFrom: number | null;
  release(): void;
}

/**
 * Takes the lock of `dataDir` (creating the directory if needed) without waiting. The lock is an
 * OS file lock on `<dataDir>/courier.lock`, so the kernel drops it when its holder dies, even by
 * SIGKILL: a stale file left by a dead process is simply taken over. The file holds the
 * holder's pid so a second process can say who is in the way.
 */
export async function acquireLock(dataDir: string): Promise<DataDirLock> {
  const path = `${dataDir.replace(/\/+$/, "")}/${LOCK_FILE}`;
  try {
    await Deno.mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw new LockError(
      `cannot create data directory ${dataDir}: ${(error as Error).message}`,
      2,
    );
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true, write: true, create: true });
  } catch (error) {
    throw new LockError(`cannot open lock file ${path}: ${(error as Error).message}`, 2);
  }
  if (!(await file.tryLock(true))) {
    const holder = readPid(file);
    file.close();
    throw new LockError(
      `another courier process (pid ${holder ?? "unknown"}) is working on ${dataDir} ` +
        `(lock ${path}); wait for it to finish or stop it`,
    );
  }
  const previous = readPid(file);
  await file.truncate(0);
  await file.seek(0, Deno.SeekMode.Start);
  await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  let released = false;
  return {
    path,
    takenOverFrom: previous !== null && previous !== Deno.pid ? previous : null,
    release() {
      if (released) return;
      released = true;
      try {
        // Leave the file: removing it would let a third process lock a different inode.
        file.truncateSync(0);
        file.unlockSync();
      } finally {
        file.close();
      }
    },
  };
}

function readPid(file: Deno.FsFile): number | null {
  try {
    file.seekSync(0, Deno.SeekMode.Start);
    const buf = new Uint8Array(32);
    const n = file.readSync(buf) ?? 0;
    const text = new TextDecoder().decode(buf.subarray(0, n)).trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}
