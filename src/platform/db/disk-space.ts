// The embedded engine's disk-space guard (decision 420). PGlite runs PostgreSQL on this process's main thread: a
// data file that cannot grow fails its statement (53100, answered 503) and the process carries on, but a WAL write
// that fails is a PANIC in PostgreSQL, and in PGlite it leaves the main thread spinning for good (measured: no
// answer, not even /healthz, until the process is killed). So writes stop before the disk is that full: while
// DATA_DIR's file system has less than `freeBytesMin` available, write requests and the workers' steps are refused
// with 503, /readyz says so, and reads go on. The check is one statfs per interval.
import fs from 'node:fs';
import type { Logger } from 'pino';

export interface DiskSpaceGuard {
  /** True while DATA_DIR's file system has less free space than writes need to be safe. */
  low(): boolean;
  stop(): void;
}

export function watchDiskSpace(
  dir: string,
  freeBytesMin: number,
  intervalMs: number,
  logger: Logger,
): DiskSpaceGuard {
  let low = false;
  const check = () => {
    let freeBytes: number;
    try {
      const stats = fs.statfsSync(dir);
      freeBytes = stats.bavail * stats.bsize;
    } catch (error) {
      // A file system that cannot even be asked is no place to write.
      freeBytes = 0;
      logger.warn({ err: error, dir }, 'cannot read the free space of DATA_DIR');
    }
    const nowLow = freeBytes < freeBytesMin;
    if (nowLow !== low) {
      if (nowLow)
        logger.error(
          { dir, freeBytes, freeBytesMin },
          'DATA_DIR is almost full: writes are refused (503) until space is freed',
        );
      else logger.warn({ dir, freeBytes }, 'DATA_DIR has space again: writes are accepted');
    }
    low = nowLow;
  };
  check();
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return { low: () => low, stop: () => clearInterval(timer) };
}
