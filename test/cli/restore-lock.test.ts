// Decision 810: `cobro restore` wrote DATA_DIR/secret.key before it opened (and locked) DATA_DIR. A `cobro serve`
// started on the same directory in between took the lock, found the key file and started on an empty database
// beside it; the restore, refused by that lock, then removed every file of the directory, the serve's included.
// Now the restore locks the directory first, writes nothing into one another process holds, and leaves it alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeBackup } from '../../src/platform/db/backup-file.ts';
import { restoreBackup } from '../../src/platform/db/backup.ts';
import { dataDirEntries } from '../../src/platform/process/fs-permissions.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-restore-lock-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('cobro restore and a serve started on the same DATA_DIR', () => {
  it('writes no key into a directory another cobro process has locked since the emptiness check', async () => {
    const file = path.join(root, 'with-key.cobro-backup');
    fs.writeFileSync(
      file,
      await encodeBackup(
        {
          createdAt: new Date(0).toISOString(),
          engine: 'pglite',
          migrations: [],
          secretKeyFile: 'ab'.repeat(32),
        },
        new TextEncoder().encode('database files'),
      ),
    );
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    // The restore checks the directory is empty, then reads the file; meanwhile a serve (here: the live process
    // that runs this test file's runner) takes DATA_DIR's lock as lockDataDir does.
    const restoring = restoreBackup(dataDir, file);
    const lockFile = path.join(dataDir, dataDirEntries.lock);
    fs.writeFileSync(lockFile, `${process.ppid}\n`, { flag: 'wx', mode: 0o600 });
    const outcome = await restoring.catch((error: unknown) => ({ thrown: String(error) }));
    expect(outcome).toEqual({
      ok: false,
      reason: expect.stringContaining(`is in use by another cobro process (pid ${process.ppid})`),
    });
    expect(fs.existsSync(path.join(dataDir, dataDirEntries.secretKey))).toBe(false);
    // The serve's lock is still its own.
    expect(fs.readFileSync(lockFile, 'utf8')).toBe(`${process.ppid}\n`);
  });
});
