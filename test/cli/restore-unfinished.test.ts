// Decision 880: `cobro restore` unpacks the database into DATA_DIR file by file. Killed midway (kill -9, a power
// loss) it left a directory that looked like a database once PG_VERSION was written, and `cobro serve` started on
// whatever part of the backup had reached the disk. The restore now writes DATA_DIR/restore.incomplete before
// anything else and removes it last; no command opens a directory that holds it, and a new restore refuses it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { encodeBackup } from '../../src/platform/db/backup-file.ts';
import { restoreBackup } from '../../src/platform/db/backup.ts';
import { migrationNames } from '../../src/platform/db/migrate.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { dataDirEntries } from '../../src/platform/process/fs-permissions.ts';
import { childEnv, cobroBin, runCli } from '../support/cli.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-restore-unfinished-'));
const file = path.join(root, 'whole.cobro-backup');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  if (onPostgres) return;
  // A backup of a migrated database: the suite's snapshot of one, in the backup file's format.
  const tar = fs.readFileSync(inject('pgliteSnapshotPath'));
  const header = {
    createdAt: new Date(0).toISOString(),
    engine: 'pglite' as const,
    migrations: await migrationNames(),
    secretKeyFile: 'ab'.repeat(32),
  };
  fs.writeFileSync(file, await encodeBackup(header, new Uint8Array(tar)));
});

const marker = (dataDir: string) => path.join(dataDir, dataDirEntries.restoring);

/** `cobro restore` killed with SIGKILL once the database's directory appears; null when it finished first. */
async function restoreKilledMidway(dataDir: string): Promise<NodeJS.Signals | null> {
  const child = spawn(cobroBin, ['restore', '--from', file], {
    env: childEnv({ DATA_DIR: dataDir }),
    stdio: 'ignore',
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  let done = false;
  void exited.then(() => (done = true));
  while (!done && !fs.existsSync(path.join(dataDir, dataDirEntries.database)))
    await new Promise((r) => setTimeout(r, 1));
  if (!done) child.kill('SIGKILL');
  return exited;
}

describe.skipIf(onPostgres)('a restore cut short', () => {
  it('leaves its mark, which every start refuses and a new restore asks to clear', {
    timeout: 120_000,
  }, async () => {
    let dataDir = '';
    let signal: NodeJS.Signals | null = null;
    for (let tryNumber = 0; tryNumber < 5 && signal === null; tryNumber++) {
      dataDir = path.join(root, `killed-${tryNumber}`);
      signal = await restoreKilledMidway(dataDir);
    }
    expect(signal, 'every restore finished before its kill').toBe('SIGKILL');
    expect(fs.existsSync(marker(dataDir))).toBe(true);

    const env = { DATA_DIR: dataDir, COBRO_SECRET_KEY: 'ab'.repeat(32) };
    for (const command of [['migrate'], ['accounts', 'list']]) {
      const refused = await runCli(command, env);
      expect(refused.code, command.join(' ')).not.toBe(0);
      expect(refused.stderr).toContain(
        `a restore into ${dataDir} (DATA_DIR) did not finish (restore.incomplete is there): empty the directory and run \`cobro restore\` again`,
      );
    }
    const again = await runCli(['restore', '--from', file], { DATA_DIR: dataDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('restore.incomplete');
  });

  it('a restore that finishes leaves no mark, and its database opens', async () => {
    const dataDir = path.join(root, 'whole');
    const outcome = await restoreBackup(dataDir, file);
    expect(outcome.ok, outcome.ok ? '' : outcome.reason).toBe(true);
    expect(fs.existsSync(marker(dataDir))).toBe(false);
    const handle = await openDatabase({ engine: 'pglite', dataDir, readOnly: true });
    await handle.close();
  });
});
