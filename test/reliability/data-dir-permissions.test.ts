// DATA_DIR is the operator's alone (decision 072): a real `cobro serve` on a fresh DATA_DIR that takes a payment
// leaves nothing open to group or others, and a start on a DATA_DIR left loose names and tightens each loose path.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../support/cli.ts';
import { freePort } from '../support/net.ts';
import { approvedVisa } from '../modules/transactions/helpers.ts';

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-perm-'));
// Cobro creates DATA_DIR itself, as on a first `npm start`.
const dataDir = path.join(parent, 'data');
afterAll(() => {
  fs.rmSync(parent, { recursive: true, force: true });
});

/** What the check finds: every path under DATA_DIR with a group or other permission bit. */
function looseUnder(dir: string): string[] {
  return execFileSync('find', [dir, '-perm', '/o+rwx,g+rwx'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '');
}

async function payOnce(base: string, publicToken: string): Promise<void> {
  const created = await fetch(`${base}/api/transaction`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${publicToken}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({
      email: 'payer@example.com',
      order: 'perm-1',
      subject: 'Compra',
      amount: 25000,
    }),
  });
  const { id, url } = (await created.json()) as { id: string; url: string };
  const link = new URL(url).searchParams;
  const paid = await fetch(`${base}/gateway/cobro`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      id: link.get('id')!,
      valid: link.get('valid')!,
      method: '1',
      ...approvedVisa,
    }).toString(),
  });
  expect(await paid.text()).toContain('Pago exitoso');
  const got = await fetch(`${base}/api/transaction/${id}`, {
    headers: { authorization: `Bearer ${publicToken}`, accept: 'application/json' },
  });
  expect(await got.json()).toMatchObject({ status: 'success' });
}

describe('DATA_DIR permissions', () => {
  it('are 0700/0600 for everything a serving, paid-into Cobro creates', async () => {
    const port = await freePort();
    const server = await startServe({ DATA_DIR: dataDir, PORT: String(port) });
    try {
      const publicToken = /public token:\s+([0-9a-f]{32})/.exec(server.output())![1]!;
      await payOnce(`http://127.0.0.1:${port}`, publicToken);
      expect(fs.existsSync(path.join(dataDir, 'cobro.sock'))).toBe(true);
      expect(fs.existsSync(path.join(dataDir, 'secret.key'))).toBe(true);
      expect(looseUnder(dataDir)).toEqual([]);
      expect(server.output()).not.toContain('open to group or others');
    } finally {
      await server.stop();
    }
    // Files written at shutdown (checkpoint, statistics) too.
    expect(looseUnder(dataDir)).toEqual([]);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
  });

  it("names each loose path at start, tightens Cobro's own and leaves an operator's file as it is", async () => {
    const pgFile = path.join(dataDir, 'pgdata', 'PG_VERSION');
    const key = path.join(dataDir, 'secret.key');
    const notes = path.join(dataDir, 'operator-notes.txt');
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(key, 0o644);
    fs.chmodSync(pgFile, 0o666);
    fs.writeFileSync(notes, 'backups on tuesdays\n');
    fs.chmodSync(notes, 0o644);
    const server = await startServe({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    await server.stop();
    const warnings = server
      .output()
      .split('\n')
      .filter((line) => line.includes('open to group or others'));
    for (const [loose, mode] of [
      [dataDir, '0755'],
      [key, '0644'],
      [pgFile, '0666'],
      [notes, '0644'],
    ] as const) {
      expect(
        warnings.some((line) =>
          line.includes(`path ${loose} was open to group or others (${mode})`),
        ),
        loose,
      ).toBe(true);
    }
    expect(looseUnder(dataDir)).toEqual([notes]);
    expect(fs.statSync(key).mode & 0o777).toBe(0o600);
    expect(fs.statSync(pgFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});
