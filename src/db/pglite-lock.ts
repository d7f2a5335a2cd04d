/**
 * The embedded database's lock file: PGlite admits one process at a time and does not guard its data
 * directory itself.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Raised when another process holds the embedded database. */
export class DatabaseInUseError extends Error {
  override readonly name = 'DatabaseInUseError';
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * PGlite admits one process at a time and does not guard its directory itself: a lock file with the
 * owner's pid does (a lock left by a dead process is taken over, and `onTakenOver` says so: that
 * process did not stop cleanly).
 */
export function lockDataDir(dataDir: string, onTakenOver: (message: string) => void): () => void {
  const path = join(dataDir, 'tms-ingest.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseInUseError(`The embedded database in ${dataDir} is in use by process ${owner} (is the server running?). Stop it and try again.`);
      }
      rmSync(path, { force: true });
      onTakenOver(`The previous run${owner ? ` (process ${owner})` : ''} did not stop cleanly: took over its lock on the embedded database in ${dataDir}.`);
    }
  }
  throw new DatabaseInUseError(`Could not lock the embedded database in ${dataDir}.`);
}
