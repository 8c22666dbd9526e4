// Decision 815 (decision 795's low finding): on PostgreSQL in the sandbox with no COBRO_SECRET_KEY, the first command
// makes its key in DATA_DIR (./data of the working directory by default). Run where that file is not (another
// directory, or after it is removed), every later command was refused by decision 690's key check, `cobro migrate`
// included, though a migration opens no secret. `cobro migrate` now runs without the check; every other command
// keeps it, and its refusal says where the key was looked for and how to set COBRO_SECRET_KEY.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { openCliRuntime, runInProcess, seedDataDir } from '../support/cli-in-process.ts';
import { cloneTestDatabase } from '../support/database.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-migrate-key-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('cobro migrate without the secret key', () => {
  it('migrates; other commands are refused, naming the file looked for and COBRO_SECRET_KEY', {
    timeout: 120_000,
  }, async () => {
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir);
    const clone = onPostgres ? await cloneTestDatabase() : null;
    if (clone === null) await seedDataDir(dataDir);
    const env: Record<string, string> = {
      ...(clone?.url !== undefined ? { DATABASE_URL: clone.url } : {}),
      DATA_DIR: dataDir,
      COBRO_MODE: 'sandbox',
    };
    try {
      // The first command makes DATA_DIR/secret.key and seals an account's secrets under it.
      const writer = await openCliRuntime(env);
      const created = await runInProcess(['accounts', 'create', '--name', 'Sellada'], writer);
      await writer.close();
      expect(created.code, created.stderr).toBe(0);
      const keyFile = path.join(dataDir, 'secret.key');
      const key = fs.readFileSync(keyFile, 'utf8');
      fs.rmSync(keyFile);

      const migrated = await runCli(['migrate'], env);
      expect(migrated.stderr).toBe('');
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toBe('database is up to date\n');
      expect(fs.existsSync(keyFile), 'a migration makes no key file').toBe(false);

      await expect(openCliRuntime(env)).rejects.toThrow(
        `COBRO_SECRET_KEY is unset and ${keyFile} does not exist; start with the key the data was written under: set COBRO_SECRET_KEY to it`,
      );
      const again = await openCliRuntime({ ...env, COBRO_SECRET_KEY: key.trim() });
      await again.close();
    } finally {
      await clone?.close();
    }
  });
});
