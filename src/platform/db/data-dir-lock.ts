// The embedded database belongs to one process at a time: two PGlite instances on one directory corrupt it. Whoever
// opens DATA_DIR's database first writes its pid to DATA_DIR/cobro.lock (created exclusively, so of two processes
// starting together one wins); a second opener is refused with a message while that pid lives. A lock left by a
// process that died (kill -9, power cut) names a pid that no longer runs and is taken over.
import fs from 'node:fs';
import path from 'node:path';
import { dataDirEntries } from '../process/fs-permissions.ts';
import { StartupError } from '../process/startup-error.ts';
import { makeDataDir } from '../process/data-dir.ts';

export interface DataDirLock {
  release(): void;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  return /^\d{1,10}$/.test(text) ? Number(text) : null;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, dataDirEntries.lock);
  makeDataDir(dataDir);
  // Two tries: the second follows the removal of a lock whose process is gone.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return holding(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(file);
    // Our own pid in the file is a lock left by an earlier process that had it (a container's pid 1 restarted).
    if (holder !== null && holder !== process.pid && pidAlive(holder)) {
      throw new StartupError(
        `DATA_DIR ${dataDir} is in use by another cobro process (pid ${holder}): stop it, or set DATA_DIR to another directory`,
      );
    }
    fs.rmSync(file, { force: true });
  }
  throw new StartupError(
    `DATA_DIR ${dataDir} is being locked by another cobro process starting at the same time: try again`,
  );
}

function holding(file: string): DataDirLock {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.removeListener('exit', release);
    if (holderOf(file) === process.pid) fs.rmSync(file, { force: true });
  };
  // A process.exit() before close() still frees the directory.
  process.on('exit', release);
  return { release };
}
