// Decision 690: before it, a DATA_DIR naming a regular file gave "cobro: unexpected error: EEXIST ... mkdir" and a
// damaged DATA_DIR/secret.key gave "cobro: unexpected error: secret key must be 32 bytes".
// Operator mistakes on the embedded database's files get one clear line and an exit code, never "unexpected error"
// (docs/operations.md "Start-up errors": "An error that is not one of these is a bug: it prints `cobro: unexpected
// error: ...`").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { seedDataDir } from '../support/cli-in-process.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-ops-input-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe.skipIf(onPostgres)('bad operator input on DATA_DIR', () => {
  it('DATA_DIR naming a file: cobro migrate says so, not "unexpected error"', async () => {
    const file = path.join(root, 'not-a-directory');
    fs.writeFileSync(file, 'x');
    const out = await runCli(['migrate'], { DATA_DIR: file, COBRO_MODE: 'sandbox' });
    expect(out.code).not.toBe(0);
    expect(out.stderr).not.toContain('unexpected error');
    expect(out.stderr).toContain('DATA_DIR');
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });

  it('a damaged DATA_DIR/secret.key: the error names the file, not "unexpected error"', async () => {
    const dataDir = path.join(root, 'damaged-key');
    await seedDataDir(dataDir);
    fs.writeFileSync(path.join(dataDir, 'secret.key'), 'not-a-key\n', { mode: 0o600 });
    const out = await runCli(['accounts', 'list'], { DATA_DIR: dataDir, COBRO_MODE: 'sandbox' });
    expect(out.code).not.toBe(0);
    expect(out.stderr).not.toContain('unexpected error');
    expect(out.stderr).toContain('secret.key');
  });
});
