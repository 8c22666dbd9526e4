// The sandbox key file made by the first start (decision 1220): two starts on one fresh DATA_DIR (two `cobro serve`
// on one PostgreSQL) once crashed the later one with EEXIST; both must end with the one key on disk.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretKeyFile, resolveSecretKey } from '../../../src/platform/auth/secrets.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-secret-key-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function freshDir(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe('the sandbox secret key file', () => {
  it('answers the key already written when another start wrote one first, and leaves no draft behind', () => {
    const dir = freshDir('first-wins');
    const first = resolveSecretKey(null, dir);
    const second = createSecretKeyFile(dir, Buffer.alloc(32, 7));
    expect(second.toString('hex')).toBe(first.toString('hex'));
    expect(fs.readdirSync(dir)).toEqual(['secret.key']);
    expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
  });
});
