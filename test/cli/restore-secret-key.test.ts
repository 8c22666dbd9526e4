// Decision 690: before it, a copy restored from a COBRO_SECRET_KEY deployment and started without that key started,
// said it was ready, wrote itself a new DATA_DIR/secret.key and answered every signed request 500. Now the start is
// refused, naming COBRO_SECRET_KEY; so is a start with another key, on either engine, and no key file is made.
// docs/operations.md "Backup and restore": "With COBRO_SECRET_KEY the key is not in the backup: start the restored
// copy with the same one." An operator who forgets (or sets another key) gets a server that starts, says it is
// ready, and answers every signed request with 500: resolveSecretKey (src/platform/auth/secrets.ts:42) makes a new
// DATA_DIR/secret.key for a database whose secrets were sealed under another key, and nothing checks the key against
// the database before serving. A start that cannot succeed should say why and exit (docs/operations.md "Start-up
// errors"); a request should never get a 500 for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { openCliRuntime, runInProcess, dataDirSeeder } from '../support/cli-in-process.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { call, demoCredentials } from '../reliability/load.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-restore-key-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const seedDataDir = dataDirSeeder(root);

describe.skipIf(onPostgres)('a restored copy started without the key it was written under', () => {
  it('refuses to start naming COBRO_SECRET_KEY, or at least never answers 500', {
    timeout: 120_000,
  }, async () => {
    const original = path.join(root, 'original');
    await seedDataDir(original);
    const env = {
      DATA_DIR: original,
      PORT: String(await freePort()),
      COBRO_MODE: 'sandbox',
      COBRO_SECRET_KEY: 'ab'.repeat(32),
    };
    let server: ServeProcess | null = await startServe(env);
    const who = demoCredentials(server.output());
    const file = path.join(root, 'with-env-key.cobro-backup');
    try {
      const before = await call(`http://127.0.0.1:${env.PORT}`, who, 'GET', '/api/account');
      expect(before.status, before.text).toBe(200);
      const backup = await runCli(['backup', '--to', file], env);
      expect(backup.code, backup.stderr).toBe(0);
    } finally {
      await server.stop();
      server = null;
    }

    const copy = path.join(root, 'copy');
    const restored = await runCli(['restore', '--from', file], { DATA_DIR: copy });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('COBRO_SECRET_KEY');

    // The operator starts the copy without COBRO_SECRET_KEY (sandbox: no configuration error for it).
    const copyEnv = { DATA_DIR: copy, PORT: String(await freePort()), COBRO_MODE: 'sandbox' };
    const started = await startServe(copyEnv, 60_000).then(
      (s) => ({ server: s, refusal: null }),
      (error: unknown) => ({ server: null, refusal: String(error) }),
    );
    if (started.server === null) {
      expect(started.refusal).toMatch(/COBRO_SECRET_KEY|secret key/);
      return;
    }
    try {
      const after = await call(`http://127.0.0.1:${copyEnv.PORT}`, who, 'GET', '/api/account');
      expect(after.status, `a signed request on the copy: ${after.text}`).not.toBe(500);
    } finally {
      await started.server.stop();
    }
  });
});

describe('a start whose key does not open the database', () => {
  it('is refused with another COBRO_SECRET_KEY or with none, and makes no key file', async () => {
    const dataDir = path.join(root, 'checked');
    fs.mkdirSync(dataDir);
    // On PostgreSQL the database is this file's clone and DATA_DIR only where a sandbox key file would go.
    const clone = onPostgres ? await cloneTestDatabase() : null;
    if (clone === null) await seedDataDir(dataDir);
    const engine: Record<string, string> =
      clone?.url !== undefined ? { DATABASE_URL: clone.url } : {};
    const envWith = (key?: string): Record<string, string> => ({
      ...engine,
      DATA_DIR: dataDir,
      COBRO_MODE: 'sandbox',
      ...(key !== undefined ? { COBRO_SECRET_KEY: key } : {}),
    });
    try {
      const writer = await openCliRuntime(envWith('ab'.repeat(32)));
      const created = await runInProcess(['accounts', 'create', '--name', 'Sellada'], writer);
      await writer.close();
      expect(created.code, created.stderr).toBe(0);

      await expect(openCliRuntime(envWith('cd'.repeat(32)))).rejects.toThrow(
        /the secret key from COBRO_SECRET_KEY does not open the secrets in this database.*start with the key the data was written under/,
      );
      await expect(openCliRuntime(envWith())).rejects.toThrow(
        /holds secrets sealed under a secret key, and there is none: COBRO_SECRET_KEY is unset/,
      );
      expect(fs.existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
      const again = await openCliRuntime(envWith('ab'.repeat(32)));
      await again.close();
    } finally {
      await clone?.close();
    }
  });
});
