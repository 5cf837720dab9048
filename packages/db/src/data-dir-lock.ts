import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Refused: another process (or this one) has the directory open. */
export class DataDirInUse extends Error {
  constructor(dataDir: string, holder: number) {
    super(
      `${resolve(dataDir)} is in use by process ${holder}: embedded PostgreSQL allows one process per data directory. ` +
        'Stop that process first, or give this one its own DATA_DIR (or a DATABASE_URL).',
    );
    this.name = 'DataDirInUse';
  }
}

/**
 * Takes the embedded database's directory for this process, or refuses at once. PGlite keeps
 * the whole server inside one process: a second one on the same files sees only its own
 * writes and leaves the directory unreadable. The lock is a file created exclusively, holding
 * the owner's PID; a file left by a process that no longer runs is taken over. Returns the
 * function that lets the directory go.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, 'agov.lock');
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
    if (Number.isInteger(holder) && isRunning(holder)) throw new DataDirInUse(dataDir, holder);
    // Left behind by a process that died: the directory is free.
    unlinkSync(path);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
