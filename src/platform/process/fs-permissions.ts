// DATA_DIR holds the embedded database, the sandbox secret key and the operator socket: only the operator's user
// may read or write them (decision 072). Two measures, because PGlite sets the modes of its files itself:
//  - a process umask of 077 before anything is created, so every file and directory created later (WAL segments,
//    new tables, the socket) has no group or other bits, whoever creates it;
//  - a pass that strips group and other bits from Cobro's entries, run at start (reporting what an earlier
//    version or an operator left loose) and after the embedded database opens (PGlite writes the files of a new
//    database with mode 0666, whatever the umask).
// Only Cobro's own entries are changed: DATA_DIR may be a directory an operator shares with other files.
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import type { Logger } from 'pino';
import { dataDirLimits } from '../../limits/index.ts';

/** What Cobro creates directly under DATA_DIR. */
export const dataDirEntries = {
  database: 'pgdata',
  secretKey: 'secret.key',
  opsSocket: 'cobro.sock',
  lock: 'cobro.lock',
  /** Present while `cobro restore` writes the database (decision 880): a restore cut short left it. */
  restoring: 'restore.incomplete',
} as const;

const groupOtherBits = 0o077;
const stickyBit = 0o1000;

export interface LoosePath {
  readonly path: string;
  /** Permission bits found, e.g. "0666". */
  readonly modeBefore: string;
  /** The bits now, or null when the path was left as it was (not Cobro's, or chmod failed). */
  readonly modeAfter: string | null;
  readonly reason?: string;
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/** Files and directories this process creates from now on get no group or other bits. */
export function restrictUmask(): void {
  // A worker thread cannot change the process's umask; the tightening pass still covers what it opens.
  if (!isMainThread) return;
  const previous = process.umask(groupOtherBits);
  process.umask(previous | groupOtherBits);
}

function lstatOrNull(target: string): fs.Stats | null {
  try {
    return fs.lstatSync(target);
  } catch {
    return null;
  }
}

/** Strips group and other bits from one path when it has any; symbolic links are never followed. */
function tightenOne(target: string, stat: fs.Stats, mayChange: boolean, found: LoosePath[]): void {
  if (stat.isSymbolicLink() || (stat.mode & groupOtherBits) === 0) return;
  const modeBefore = octal(stat.mode);
  if (!mayChange) {
    found.push({
      path: target,
      modeBefore,
      modeAfter: null,
      reason: 'not created by Cobro; left as it is',
    });
    return;
  }
  const mode = stat.mode & 0o7700;
  try {
    fs.chmodSync(target, mode);
    found.push({ path: target, modeBefore, modeAfter: octal(mode) });
  } catch (error) {
    found.push({
      path: target,
      modeBefore,
      modeAfter: null,
      reason: (error as NodeJS.ErrnoException).code ?? String(error),
    });
  }
}

/** Tightens `root` and everything below it (at most dataDirLimits.scanEntriesMax entries); returns what was loose. */
export function tightenTree(root: string, found: LoosePath[] = []): LoosePath[] {
  const pending = [root];
  let seen = 0;
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (++seen > dataDirLimits.scanEntriesMax) {
      found.push({
        path: root,
        modeBefore: '?',
        modeAfter: null,
        reason: `scan stopped after ${dataDirLimits.scanEntriesMax} entries`,
      });
      break;
    }
    const stat = lstatOrNull(current);
    if (stat === null) continue;
    tightenOne(current, stat, true, found);
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(current)) pending.push(path.join(current, name));
    }
  }
  return found;
}

/**
 * The start-up check: sets the umask, tightens DATA_DIR and Cobro's entries in it, and returns every path that
 * was loose, Cobro's or not, for the caller to log. A missing DATA_DIR is not created here.
 */
export function secureDataDir(dataDir: string): LoosePath[] {
  restrictUmask();
  const found: LoosePath[] = [];
  const stat = lstatOrNull(dataDir);
  if (stat === null || !stat.isDirectory()) return found;
  // A shared directory (sticky like /tmp, or another user's) keeps its mode; Cobro's entries inside still tighten.
  const ownsDir =
    (stat.mode & stickyBit) === 0 &&
    (process.getuid === undefined || stat.uid === process.getuid());
  tightenOne(dataDir, stat, ownsDir, found);
  const ours: ReadonlySet<string> = new Set(Object.values(dataDirEntries));
  for (const name of fs.readdirSync(dataDir)) {
    const entry = path.join(dataDir, name);
    if (ours.has(name)) tightenTree(entry, found);
    else {
      const entryStat = lstatOrNull(entry);
      if (entryStat !== null) tightenOne(entry, entryStat, false, found);
    }
  }
  return found;
}

/** One warning per loose path (up to loosePathWarningsMax), then one line counting the rest. */
export function warnLoosePaths(logger: Logger, found: readonly LoosePath[]): void {
  for (const loose of found.slice(0, dataDirLimits.loosePathWarningsMax)) {
    const what =
      loose.modeAfter !== null
        ? `tightened to ${loose.modeAfter}`
        : `left as it is (${loose.reason ?? 'unknown'})`;
    logger.warn(
      { path: loose.path, modeBefore: loose.modeBefore, modeAfter: loose.modeAfter },
      `DATA_DIR path ${loose.path} was open to group or others (${loose.modeBefore}); ${what}`,
    );
  }
  const rest = found.length - dataDirLimits.loosePathWarningsMax;
  if (rest > 0)
    logger.warn({ count: rest }, `${rest} more DATA_DIR paths were open to group or others`);
}
