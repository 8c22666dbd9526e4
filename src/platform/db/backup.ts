// `cobro backup` and `cobro restore` on the embedded database (decision 520). A backup is taken inside the process
// that holds the database (the serving one, reached through the operator socket): PGlite copies its files while no
// statement runs, which is what a crash at that instant would have left, and a start on the copy recovers from its
// WAL exactly as after a crash, with every transaction committed before the copy and none after.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { limits } from '../../limits/index.ts';
import { dataDirEntries } from '../process/fs-permissions.ts';
import { makeDataDir } from '../process/data-dir.ts';
import { decodeBackup, encodeBackup } from './backup-file.ts';
import { migrationNames } from './migrate.ts';
import { openDatabase } from './database.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { StartupError } from '../process/startup-error.ts';

export type BackupOutcome = { ok: true; text: string } | { ok: false; reason: string };

function readSecretKeyFile(dataDir: string): string | null {
  try {
    return fs.readFileSync(path.join(dataDir, dataDirEntries.secretKey), 'utf8');
  } catch {
    return null;
  }
}

/**
 * Writes `bytes` to a temporary file beside `file`, then links it in under the name, which fails when the name
 * exists: of two backups to one name (a cron line and a manual run), one writes it and the other is refused, where
 * a rename would have replaced the first (decision 690). The temporary file is removed whatever happens.
 */
function placeNewFile(file: string, bytes: Uint8Array): boolean {
  const partial = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.partial`;
  try {
    fs.writeFileSync(partial, bytes, { mode: 0o600, flag: 'wx' });
    fs.linkSync(partial, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

/** Writes the backup to `file` (a new file, mode 0600: it holds the data and maybe the secret key). */
export async function takeBackup(ctx: AppContext, file: string): Promise<BackupOutcome> {
  if (ctx.dumpDataDir === undefined)
    return { ok: false, reason: 'this database is not the embedded one' };
  if (fs.existsSync(file)) return { ok: false, reason: `${file} exists: choose a new file name` };
  if (!fs.existsSync(path.dirname(file)))
    return { ok: false, reason: `the directory ${path.dirname(file)} does not exist` };
  const migrations = (
    await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(ctx.db)
  ).rows.map((r) => r.name);
  // Fewer pages to replay on the copy's first start; statements keep running while it writes.
  await sql`CHECKPOINT`.execute(ctx.db);
  const started = performance.now();
  const tar = new Uint8Array(await (await ctx.dumpDataDir()).arrayBuffer());
  const heldMs = Math.round(performance.now() - started);
  const bytes = await encodeBackup(
    {
      createdAt: ctx.clock.now().toISOString(),
      engine: 'pglite',
      migrations,
      secretKeyFile: readSecretKeyFile(ctx.config.dataDir),
    },
    tar,
  );
  if (!placeNewFile(file, bytes))
    return { ok: false, reason: `${file} exists: choose a new file name` };
  ctx.logger.info({ file, bytes: bytes.length, heldMs }, 'backup written');
  return {
    ok: true,
    text: `backup written to ${file}: ${bytes.length} bytes, ${migrations.length} migrations, database files copied in ${heldMs} ms`,
  };
}

/** What is in dataDir already, if anything: restore writes only into an empty or missing directory. */
function dataDirContents(dataDir: string): readonly string[] {
  try {
    return fs.readdirSync(dataDir);
  } catch {
    return [];
  }
}

async function readBackupFile(file: string): Promise<Buffer | string> {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return `cannot read ${file}`;
  }
  if (size > limits.backupFileBytesMax)
    return `${file} is ${size} bytes, over the ${limits.backupFileBytesMax} a restore reads`;
  return fs.promises.readFile(file);
}

/**
 * DATA_DIR locked for a restore, before anything is written into it: a `cobro serve` started on it since the first
 * check holds its lock and is left alone (it used to find the key file written, start on an empty database beside
 * it, and lose its own files to the restore's clean-up; decision 810). The database's open takes the lock over.
 */
function lockEmptyDataDir(dataDir: string): DataDirLock | BackupOutcome {
  let lock: DataDirLock;
  try {
    lock = lockDataDir(dataDir);
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    return { ok: false, reason: error.message };
  }
  const others = dataDirContents(dataDir).filter((e) => e !== dataDirEntries.lock);
  if (others.length === 0) return lock;
  lock.release();
  return notEmpty(dataDir, others);
}

function notEmpty(dataDir: string, found: readonly string[]): BackupOutcome {
  return {
    ok: false,
    reason: `DATA_DIR ${dataDir} is not empty (${found.slice(0, 5).join(', ')}): restore writes only into an empty directory`,
  };
}

/** Restores `file` into an empty DATA_DIR: checks the file whole, then writes the database and the secret key. */
export async function restoreBackup(dataDir: string, file: string): Promise<BackupOutcome> {
  const found = dataDirContents(dataDir);
  if (found.length > 0) return notEmpty(dataDir, found);
  const bytes = await readBackupFile(file);
  if (typeof bytes === 'string') return { ok: false, reason: bytes };
  const decoded = await decodeBackup(bytes);
  if (!decoded.ok) return { ok: false, reason: `${file}: ${decoded.reason}` };
  const { header, tar } = decoded.contents;
  const known = new Set(await migrationNames());
  const unknown = header.migrations.filter((m) => !known.has(m));
  if (unknown.length > 0)
    return {
      ok: false,
      reason: `${file} was written by a newer cobro (migrations this one lacks: ${unknown.join(', ')}): restore it with that release`,
    };
  const createdDir = !fs.existsSync(dataDir);
  makeDataDir(dataDir);
  const lock = lockEmptyDataDir(dataDir);
  if ('ok' in lock) return lock;
  const marker = path.join(dataDir, dataDirEntries.restoring);
  try {
    // Written first and removed last: a restore killed between (the database half written) leaves it, and no
    // start opens such a directory (decision 880).
    fs.writeFileSync(marker, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
    if (header.secretKeyFile !== null)
      fs.writeFileSync(path.join(dataDir, dataDirEntries.secretKey), header.secretKeyFile, {
        mode: 0o600,
        flag: 'wx',
      });
    const handle = await openDatabase({
      engine: 'pglite',
      dataDir,
      loadDataDir: new Blob([tar], { type: 'application/x-tar' }),
    });
    try {
      await sql`SELECT 1`.execute(handle.db);
    } finally {
      await handle.close();
    }
    fs.rmSync(marker);
  } catch (error) {
    // A failed restore leaves the directory as it found it, so the next try finds it empty.
    for (const entry of fs.readdirSync(dataDir))
      fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    if (createdDir) fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  } finally {
    lock.release();
  }
  const pending = known.size - header.migrations.length;
  return {
    ok: true,
    text: `restored ${file} (written ${header.createdAt}, ${header.migrations.length} migrations) into ${dataDir}${header.secretKeyFile === null ? '; its secret key came from COBRO_SECRET_KEY: set the same one' : ''}${pending > 0 ? `; \`cobro serve\` applies ${pending} newer migration(s) at its start` : ''}`,
  };
}
