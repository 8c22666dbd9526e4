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
import { seedDataDir } from '../support/cli-in-process.ts';
import { freePort } from '../support/net.ts';
import { call, demoCredentials } from '../reliability/load.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-restore-key-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

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
